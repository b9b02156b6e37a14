import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

/**
 * A REAL OpenID Connect provider (the `oidc-provider` package, the certified implementation), on
 * a loopback port: discovery, JWKS-signed ID tokens, PKCE, the authorization code exchange and
 * userinfo all happen over HTTP exactly as with a company's IdP. Its development login form
 * accepts any login name; `accounts` says which claims (email) each name has.
 */
export type OidcAccount = {
  email: string;
  name: string;
  /** The `email_verified` claim: true by default; null leaves the claim out (as some providers do). */
  emailVerified?: boolean | null;
};

export async function startOidcProvider(opts: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** By login name; or a function of it (the browser tests' provider: any email is a login). */
  accounts: Record<string, OidcAccount> | ((login: string) => OidcAccount | undefined);
}) {
  // The issuer must be known before the server listens: take a free port first.
  const probe = await new Promise<Server>((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const { accounts } = opts;
      const account =
        typeof accounts === "function" ? accounts(sub) : Object.hasOwn(accounts, sub) ? accounts[sub] : undefined;
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.email,
          ...(account.emailVerified === null ? {} : { email_verified: account.emailVerified ?? true }),
          name: account.name,
        }),
      };
    },
  });
  // The development interactions log a warning per start; the tests know.
  provider.on("server_error", (_ctx, err) => console.error("oidc-provider", err));
  const server = provider.listen(port, "127.0.0.1") as unknown as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A minimal cookie jar for one host (the provider's interaction and session cookies). */
export class CookieJar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Walks the provider's side of an authorization request as a browser would: follows its
 * redirects, submits its login form (as `login`) and its consent form, and stops at the first
 * redirect back to `appOrigin` (the app's callback), which it returns.
 */
export async function loginAtProvider(authorizationUrl: string, login: string, appOrigin: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let method = "GET";
  let body: string | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, {
      method,
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body,
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url).toString();
      if (next.startsWith(appOrigin)) return next;
      url = next;
      method = "GET";
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`provider answered ${res.status}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url).toString();
    method = "POST";
    body = html.includes('name="prompt" value="login"')
      ? new URLSearchParams({ prompt: "login", login, password: "any" }).toString()
      : new URLSearchParams({ prompt: "consent" }).toString();
  }
  throw new Error("the provider never redirected back to the app");
}
