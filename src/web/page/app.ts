// The attach page: the daemon's sessions with their state, title and owner, and a live terminal
// (xterm.js) for the chosen one. Attaching is what `termd attach` does: subscribe as an attached
// terminal with this window's size, paint the daemon's serialized screen and the history above it,
// then stream output from the offset that screen reflects. Keys go to the session unless read-only.
// A read-only page only watches: it takes the session's size instead of imposing its own, so
// watching an agent's session does not resize it under the agent. An agent's session opens read-only, and "Take over" / "Give
// back" hold the session for this page and release it (session.subscribe's take_over): while the
// page holds it, the daemon refuses the agent's typing, commands and resizes.
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { askNewSession, confirmAction } from "./dialogs.ts";
import { FONT_FAMILY, loadFonts, onFontsLoaded } from "./fonts.ts";
import { Rpc, RpcError } from "./rpc.ts";
import type { EventMessage, SessionInfo, Size } from "../../protocol/schemas.ts";
import { commandLine, ownerOf, statusOf } from "../../protocol/session-labels.ts";

const LIST_EVERY_MS = 2000;
const RESIZE_DEBOUNCE_MS = 150;
const RECONNECT_MS = 1000;
/** Who holds a session this page took over, as session.info's held_by shows it. */
const HOLDER = "a person at the browser page";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const rows = $<HTMLTableElement>("sessions").tBodies[0]!;
const readOnlyBox = $<HTMLInputElement>("read-only");
const takeOver = $<HTMLButtonElement>("take-over");
const statusText = $("status");
const control = $("control");

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const FONT_SIZE = 14;
/**
 * Each row's height over the font's own (its ascent and descent, which xterm.js measures rounded to
 * whole pixels): xterm.js centres the text in a row and clips what leaves it, and in a row just as
 * tall as DejaVu Sans Mono's glyphs the bottom of the descent, where `_` sits and `g` and `y` end,
 * was cut off (an underscore vanished). 1.2 leaves them a pixel or two below.
 */
const LINE_HEIGHT = 1.2;
/** Lines of a session's history the page loads on attach and keeps above the screen, unless `?scrollback=N` says. */
const DEFAULT_SCROLLBACK = 1000;
/** At most this many (xterm.js holds each line's cells in memory). */
const MAX_SCROLLBACK = 50_000;

function scrollbackWanted(): number {
  const asked = new URLSearchParams(location.search).get("scrollback");
  const n = asked === null ? DEFAULT_SCROLLBACK : Number(asked);
  return Number.isInteger(n) && n >= 0 ? Math.min(n, MAX_SCROLLBACK) : DEFAULT_SCROLLBACK;
}

const SCROLLBACK = scrollbackWanted();
// allowProposedApi: the Unicode 11 widths are set through the proposed `unicode` API.
const term = new Terminal({
  fontSize: FONT_SIZE,
  fontFamily: FONT_FAMILY,
  lineHeight: LINE_HEIGHT,
  scrollback: SCROLLBACK,
  allowProposedApi: true,
});
// The daemon's width table (emoji and CJK two cells wide), so the page and the screen agree.
term.loadAddon(new Unicode11Addon());
term.unicode.activeVersion = "11";
// A font that arrived after xterm.js measured glyphs in a stand-in: an equal but different family
// string is the one public way to make it measure again (it compares the string).
onFontsLoaded(() => (term.options.fontFamily = term.options.fontFamily === FONT_FAMILY ? `${FONT_FAMILY} ` : FONT_FAMILY));
const termEl = $("terminal");

/** Rows and columns that fit the terminal's box, measured in the terminal's own font. */
function fit(): Size {
  const probe = document.createElement("span");
  probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font-family:${term.options.fontFamily};font-size:${term.options.fontSize}px;line-height:normal`;
  probe.textContent = "W".repeat(100);
  document.body.append(probe);
  const box = probe.getBoundingClientRect();
  probe.remove();
  const cellW = box.width / 100;
  // As xterm.js sizes a row: the font's height in whole pixels, times the line height, rounded down.
  const cellH = Math.floor(Math.ceil(box.height) * LINE_HEIGHT);
  const style = getComputedStyle(termEl);
  const w = termEl.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const h = termEl.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  return { cols: Math.max(2, Math.min(1000, Math.floor(w / cellW) - 1)), rows: Math.max(1, Math.min(1000, Math.floor(h / cellH))) };
}

/** The session this page is attached to: its own connection, closed when another is chosen. */
class Attachment {
  private rpc: Rpc | null = null;
  private disposed = false;
  readOnly: boolean;
  /** Settles once attached (painted and streaming), or failed to. */
  private ready: Promise<void> = Promise.resolve();
  /**
   * Keys wait behind this, in the order typed: the attachment being ready, and after a switch to
   * typing, the daemon being told so first (messages on one WebSocket arrive in order).
   */
  private gate: Promise<unknown> = Promise.resolve();
  /** The size this page asked for while typing (its window's); the session may be smaller. */
  wanted: Size | null = null;

  constructor(
    readonly info: SessionInfo,
    readOnly: boolean,
  ) {
    this.readOnly = readOnly;
  }

  get owner(): string | null {
    return ownerOf(this.info);
  }

  /** Typing into an agent's session is taking it over: the agent's input is refused meanwhile. */
  private get takesOver(): boolean {
    return !this.readOnly && this.owner !== null;
  }

  /**
   * Subscribes as this page's terminal; a take-over someone else already holds leaves the page
   * watching, and says who holds it.
   */
  private async attach(rpc: Rpc, params: Record<string, unknown>): Promise<void> {
    const session = this.info.id;
    try {
      await rpc.call("session.subscribe", {
        session,
        read_only: this.readOnly,
        ...(this.takesOver ? { take_over: true, holder: HOLDER } : {}),
        ...params,
      });
    } catch (err) {
      if (!(err instanceof RpcError) || err.code !== "SESSION_HELD") throw err;
      this.readOnly = true;
      renderControls();
      const { size: _size, ...rest } = params;
      await rpc.call("session.subscribe", { session, ...rest, read_only: true });
      throw err;
    }
  }

  begin(): Promise<void> {
    this.ready = this.start();
    this.gate = this.ready.catch(() => {});
    return this.ready;
  }

  private async start(): Promise<void> {
    const session = this.info.id;
    const rpc = await Rpc.open();
    if (this.disposed) return rpc.close();
    this.rpc = rpc;
    rpc.onEvent = (e) => this.onEvent(e);
    rpc.onLost = () => {
      if (this.disposed) return;
      showStatus("connection lost; reconnecting…");
      setTimeout(() => !this.disposed && this.begin().catch(() => rpc.onLost()), RECONNECT_MS);
    };
    // Typing: attach as a terminal of this window's size (the session follows the smallest
    // attached one). Watching: no size. Then paint, then stream.
    let size = this.readOnly ? undefined : fit();
    let refused: unknown = null;
    await this.attach(rpc, { events: ["title", "state", "hold"], size, strip_queries: true }).catch((err) => {
      if (!(err instanceof RpcError)) throw err;
      refused = err;
      size = undefined;
    });
    this.wanted = size ?? null;
    // The screen with the history above it: written to a reset terminal, those lines scroll into
    // its scrollback as they did on the session's own.
    const snap = await rpc.call("session.screen", { session, format: "ansi", scrollback: SCROLLBACK });
    // The session's size, which a smaller terminal attached elsewhere may hold below this window's.
    this.follow(snap.size);
    term.reset();
    term.write("\x1b[H\x1b[2J" + snap.ansi);
    await rpc.call("session.subscribe", { session, events: ["output", "exit"], replay: snap.offset });
    showStatus(refused ? (refused as Error).message : this.info.state === "running" ? "live" : `ended (${this.info.state})`);
    term.focus();
  }

  private onEvent(e: EventMessage): void {
    if (e.type === "output") term.write(base64ToBytes(String(e.data.base64)));
    else if (e.type === "title") document.title = `${e.data.title || this.info.name} · termd`;
    else if (e.type === "hold") {
      this.info.held_by = e.data.held_by as string | null;
      this.info.held_since = e.data.held_since as string | null;
      if (e.data.held_by && !this.takesOver)
        showStatus(`held by ${e.data.held_by} since ${e.data.held_since}: only they type until they give it back`);
      else if (!e.data.held_by) showStatus("live");
    } else if (e.type === "state") {
      this.info.state = e.data.state as SessionInfo["state"];
      // `termd restart`'s new run: the page stays with it, live, at this window's size (a resize
      // between the stop and the start found no program to take it).
      if (e.data.state !== "running") return;
      showStatus("live");
      if (!this.readOnly && this.wanted) this.resize(this.wanted);
      void refreshList();
    } else if (e.type === "exit") {
      const how = e.data.signal ? `ended by ${e.data.signal}` : `exited with code ${e.data.exit_code}`;
      showStatus(e.data.restarting ? `${how}: restarting` : how);
      void refreshList();
    }
  }

  input(bytes: Uint8Array): void {
    if (this.readOnly) return;
    const base64 = bytesToBase64(bytes);
    void this.gate.then(() => this.rpc?.call("session.input", { session: this.info.id, base64 }).catch((err) => showStatus(err.message)));
  }

  /** Asks for this window's size; the session takes it unless a smaller terminal holds it smaller. */
  resize(size: Size): void {
    this.wanted = size;
    this.rpc
      ?.call("session.resize", { session: this.info.id, ...size })
      .then((r) => this.follow(r.size))
      .catch(() => {});
  }

  /**
   * Starts typing: the daemon lets this connection type (an agent's session: holds it for this
   * page), and the session takes this window's size.
   */
  startTyping(): void {
    this.readOnly = false;
    this.gate = this.ready.then(async () => {
      const size = fit();
      if (!this.rpc) return;
      try {
        await this.attach(this.rpc, { events: ["title"], size });
        this.wanted = size;
        this.follow((await this.rpc.call("session.info", { session: this.info.id })).size);
      } catch (err) {
        showStatus((err as Error).message);
      }
    });
    term.focus();
  }

  /** Gives a held session back before this attachment goes, so the agent may type at once. */
  async giveBack(): Promise<void> {
    if (!this.takesOver) return;
    await this.gate;
    await this.rpc?.call("session.subscribe", { session: this.info.id, events: ["title"], take_over: false }).catch(() => {});
  }

  /**
   * Shows the session at its own size (no event tells of a resize: replies and the list do), and
   * says when it is smaller than this window asked for.
   */
  follow(size: Size): void {
    if (this.disposed) return;
    if (size.cols !== term.cols || size.rows !== term.rows) term.resize(size.cols, size.rows);
    const w = this.readOnly ? null : this.wanted;
    const limited = w !== null && (size.cols < w.cols || size.rows < w.rows);
    termEl.classList.toggle("limited", limited);
    const note = $("limited");
    note.hidden = !limited;
    note.textContent = limited
      ? `${size.cols}×${size.rows}: a smaller terminal attached to this session limits its size (this window fits ${w.cols}×${w.rows})`
      : "";
  }

  dispose(): void {
    this.disposed = true;
    this.rpc?.close();
  }
}

let current: Attachment | null = null;
let sessions: SessionInfo[] = [];

function showStatus(text: string): void {
  statusText.textContent = text;
}

function renderControls(): void {
  const a = current;
  $("toolbar").hidden = !a;
  $("pick").hidden = !!a;
  if (!a) return;
  $("current").textContent = a.info.name;
  $("stop").hidden = a.info.state !== "running";
  readOnlyBox.checked = a.readOnly;
  const owner = a.owner;
  takeOver.hidden = owner === null;
  takeOver.textContent = a.readOnly ? `Take over from ${owner}` : `Give back to ${owner}`;
  control.hidden = owner === null || a.readOnly;
  control.textContent = owner ? `You are typing into ${owner}'s session. Give it back when you are done.` : "";
  const dl = $<HTMLAnchorElement>("download");
  dl.href = `/sessions/${encodeURIComponent(a.info.id)}.cast`;
  dl.download = `${a.info.name}.cast`;
}

function renderList(): void {
  $("empty").hidden = sessions.length > 0;
  rows.replaceChildren(
    ...sessions.map((s) => {
      const tr = document.createElement("tr");
      tr.dataset.session = s.name;
      if (current?.info.id === s.id) tr.className = "chosen";
      const state = statusOf(s);
      // Who holds it goes on a line of its own, which leaves the name the room it needs.
      const held = s.held_by ? [`held by ${s.held_by}${s.held_since ? ` since ${new Date(s.held_since).toLocaleTimeString()}` : ""}`] : [];
      const cells = [s.name, state, s.title || commandLine(s.command), ownerOf(s) ?? "", ...held];
      const classes = ["name", `state state-${s.state}`, "title", "owner", "held"];
      for (const [i, text] of cells.entries()) {
        const td = document.createElement("td");
        td.textContent = text;
        td.title = text;
        td.className = classes[i]!;
        tr.append(td);
      }
      tr.onclick = () => void choose(s);
      return tr;
    }),
  );
}

/** Attaches to `s`; an agent's session is watched until a person takes it over. */
async function choose(s: SessionInfo, readOnly = ownerOf(s) !== null): Promise<void> {
  $("pick").textContent = PICK;
  current?.dispose();
  current = new Attachment(s, readOnly);
  history.replaceState(null, "", `#${encodeURIComponent(s.name)}`);
  renderControls();
  renderList();
  // Keys typed from now on are the session's (they wait until it is attached).
  term.focus();
  showStatus("attaching…");
  await current.begin().catch((err) => showStatus(`cannot attach: ${err.message}`));
}

const PICK = "Choose a session to watch or use it.";

/** Leaves the session shown, if any: nothing chosen, the address without a #name. */
function detach(why = PICK): void {
  current?.dispose();
  current = null;
  $("limited").hidden = true;
  term.reset();
  history.replaceState(null, "", location.pathname + location.search);
  document.title = "termd";
  $("pick").textContent = why;
  renderControls();
  renderList();
}

let lister: Rpc | null = null;

/** The page's connection for everything but the attached session: the list, create, stop, remove. */
async function daemon(): Promise<Rpc> {
  if (!lister) {
    const rpc = await Rpc.open();
    rpc.onLost = () => (lister = null);
    lister = rpc;
  }
  return lister;
}

async function refreshList(): Promise<void> {
  sessions = (await (await daemon()).call("session.list", {})).sessions;
  const now = sessions.find((x) => x.id === current?.info.id);
  if (now && current) {
    current.follow(now.size);
    current.info.state = now.state;
    renderControls();
  }
  renderList();
}

/** Opens the session `#name` (or `#id`) in the address names, or none when it names none. */
async function followHash(): Promise<void> {
  const raw = location.hash.slice(1);
  let wanted = raw;
  try {
    wanted = decodeURIComponent(raw);
  } catch {
    // Not percent-encoding (a lone %): the name as typed.
  }
  if (!wanted) return current ? detach() : undefined;
  if (current && (current.info.name === wanted || current.info.id === wanted)) return;
  await refreshList().catch(() => {});
  const s = sessions.find((x) => x.name === wanted || x.id === wanted);
  if (s) return choose(s);
  detach(`No session is named ${wanted}. ${PICK}`);
}

$("new-session").onclick = () =>
  askNewSession(
    (params) => daemon().then((rpc) => rpc.call("session.create", { ...params })),
    async (s) => {
      await refreshList();
      await choose(sessions.find((x) => x.id === s.id) ?? s);
    },
  );

$("stop").onclick = async () => {
  const a = current;
  const yes =
    a &&
    (await confirmAction(
      `Stop ${a.info.name}? Its program gets SIGTERM, then SIGKILL if it is still running after a grace period.`,
      "Stop",
    ));
  term.focus();
  if (!yes) return;
  await (await daemon()).call("session.stop", { session: a.info.id }).catch((err) => showStatus(err.message));
  await refreshList();
};

$("remove").onclick = async () => {
  const a = current;
  if (!a) return;
  const running = a.info.state === "running";
  const question = running
    ? `Stop ${a.info.name} and remove it? Its program is stopped, and the daemon forgets the session.`
    : `Remove ${a.info.name}? The daemon forgets the session, its final screen and output.`;
  const yes = await confirmAction(question, "Remove");
  term.focus();
  if (!yes) return;
  try {
    await (await daemon()).call("session.remove", { session: a.info.id, force: running });
  } catch (err) {
    return showStatus((err as Error).message);
  }
  if (current === a) detach();
  await refreshList();
};

term.onData((data) => current?.input(new TextEncoder().encode(data)));
term.onBinary((data) => current?.input(Uint8Array.from(data, (c) => c.charCodeAt(0))));

let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (!current || current.readOnly) return;
    const size = fit();
    const w = current.wanted;
    if (w && size.cols === w.cols && size.rows === w.rows) return;
    current.resize(size);
  }, RESIZE_DEBOUNCE_MS);
}).observe(termEl);

/**
 * Read-only again: a new connection that only watches, since an attachment keeps the size it gave
 * until its connection closes (the session must not stay at this window's size for nobody).
 */
async function setReadOnly(readOnly: boolean): Promise<void> {
  // Keys go back to the terminal, not the switch (where a space would flip it again).
  term.focus();
  const a = current;
  if (!a || a.readOnly === readOnly) return renderControls();
  if (readOnly) {
    await a.giveBack();
    if (current === a) await choose(sessions.find((s) => s.id === a.info.id) ?? a.info, true);
    return;
  }
  a.startTyping();
  renderControls();
}

readOnlyBox.onchange = () => void setReadOnly(readOnlyBox.checked);
takeOver.onclick = () => current && void setReadOnly(!current.readOnly);

async function main(): Promise<void> {
  await loadFonts(FONT_SIZE);
  term.open(termEl);
  try {
    await refreshList();
  } catch {
    // Most likely the cookie is gone or the token changed: the page asks for it again.
    const r = await fetch("/rpc", { method: "POST", body: "{}" });
    if (r.status === 401) return location.reload();
    showStatus("the daemon does not answer");
  }
  await followHash();
  // Editing #name in the address switches sessions.
  addEventListener("hashchange", () => void followHash());
  setInterval(() => void refreshList().catch(() => showStatus("the daemon does not answer")), LIST_EVERY_MS);
}

void main();
