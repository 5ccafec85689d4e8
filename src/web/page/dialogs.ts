// The page's two dialogs: "New session" (a command line, a name, a directory) and a confirmation
// before a session is stopped or removed. Both are <dialog> elements in index.html, modal while open.
import { CommandLineError, splitCommand } from "./argv.ts";

export interface NewSession {
  command?: string[];
  name?: string;
  cwd?: string;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * Asks whether to do `action` (the confirming button's label); true once the person confirms.
 * Closing gives focus back to the button that asked.
 */
export function confirmAction(question: string, action: string): Promise<boolean> {
  const dialog = $<HTMLDialogElement>("confirm");
  $("confirm-text").textContent = question;
  $("confirm-yes").textContent = action;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true }));
}

/**
 * Opens the "New session" form. Submitting it calls `start` with what was filled in (blank fields
 * left out, for the daemon's defaults); the form stays open with the reason when that fails, and
 * else closes and calls `started` with what `start` gave (once the dialog has given focus back, to
 * the button that opened it, so `started` may move it to the terminal).
 */
export function askNewSession<T>(start: (params: NewSession) => Promise<T>, started: (t: T) => void): void {
  const dialog = $<HTMLDialogElement>("create");
  const form = $<HTMLFormElement>("create-form");
  const error = $("create-error");
  const say = (text: string) => ((error.textContent = text), (error.hidden = !text));
  say("");
  // A reason stays until the field it was about changes.
  form.oninput = () => say("");
  form.onsubmit = async (e) => {
    e.preventDefault();
    const field = (name: string) => String(new FormData(form).get(name) ?? "").trim();
    const params: NewSession = {};
    try {
      const command = splitCommand(field("command"));
      if (command.length) params.command = command;
    } catch (err) {
      if (err instanceof CommandLineError) return say(`command: ${err.message}`);
      throw err;
    }
    if (field("name")) params.name = field("name");
    if (field("cwd")) params.cwd = field("cwd");
    let made: T;
    try {
      made = await start(params);
    } catch (err) {
      return say((err as Error).message);
    }
    form.reset();
    dialog.close();
    started(made);
  };
  form.querySelector<HTMLButtonElement>("button[value=cancel]")!.onclick = () => dialog.close();
  dialog.showModal();
}
