// Who may use the daemon over HTTP: a request carries the token (a Bearer header, or a WebSocket
// subprotocol for clients that cannot set headers) or a sign-in cookie, which POST /login gives
// for the token typed into the sign-in page (wrong guesses throttled per address) and POST
// /logout ends.
import type { Token } from "../protocol/token.ts";
import { formField, readBody } from "./body.ts";
import { HttpError } from "./http-error.ts";
import { loginPage } from "./login.ts";
import { LoginThrottle } from "./login-throttle.ts";
import { PAGE_HEADERS } from "./page-headers.ts";
import { subprotocols, urlOf } from "./request-parts.ts";
import { SIGN_IN_TTL_S, SignIns } from "./sign-ins.ts";
import { sameSecret } from "./token.ts";

/** Clients that cannot set headers on a WebSocket (Node's, a browser elsewhere) offer the token as a subprotocol. */
export const BEARER_SUBPROTOCOL = "termd.bearer.";
/** A sign-in form's body, at most. */
const MAX_FORM_BYTES = 64 * 1024;

function cookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

export class SignInGate {
  private readonly signIns = new SignIns();
  private readonly throttle = new LoginThrottle();
  /** Several daemons on one host share its cookies (a cookie ignores the port): each names its own once it listens. */
  cookieName = "termd";

  constructor(private readonly token: Token) {}

  authenticated(req: Request): boolean {
    // A Bearer header has the final say; any other scheme (a reverse proxy's Basic credentials,
    // passed on) is not ours, and the subprotocol or the cookie may still sign the request in.
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
    if (bearer) return sameSecret(bearer[1]!, this.token.value);
    const offered = subprotocols(req).find((p) => p.startsWith(BEARER_SUBPROTOCOL));
    if (offered !== undefined) return sameSecret(offered.slice(BEARER_SUBPROTOCOL.length), this.token.value);
    const cookie = this.signInOf(req);
    return cookie !== undefined && this.signIns.valid(cookie);
  }

  /** POST /login from `address`: the sign-in form's token, answered with a cookie or the page again. */
  async login(req: Request, address: string): Promise<Response> {
    const wait = this.throttle.wait(address);
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      throw new HttpError(429, "TOO_MANY_ATTEMPTS", `too many wrong tokens from ${address}: try again in ${s} s`, {
        "Retry-After": String(s),
      });
    }
    const given = await formField(req, await readBody(req, MAX_FORM_BYTES), "token");
    if (given === null || !sameSecret(given.trim(), this.token.value)) {
      this.throttle.failed(address);
      return this.page("That is not this daemon's token.");
    }
    this.throttle.succeeded(address);
    return new Response(null, {
      status: 303,
      headers: { Location: "/", "Set-Cookie": this.setCookie(req, this.signIns.start(), SIGN_IN_TTL_S) },
    });
  }

  /** The sign-in page, for a browser not signed in (401), with `message` above the form. */
  page(message: string): Response {
    return new Response(loginPage(message), { status: 401, headers: { "Content-Type": "text/html;charset=utf-8", ...PAGE_HEADERS } });
  }

  logout(req: Request): Response {
    const cookie = this.signInOf(req);
    if (cookie !== undefined) this.signIns.end(cookie);
    return new Response(null, { status: 303, headers: { Location: "/", "Set-Cookie": this.setCookie(req, "", 0) } });
  }

  private signInOf(req: Request): string | undefined {
    return cookies(req.headers.get("cookie")).get(this.cookieName);
  }

  private setCookie(req: Request, value: string, maxAge: number): string {
    const secure = urlOf(req).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";
    return `${this.cookieName}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
  }
}
