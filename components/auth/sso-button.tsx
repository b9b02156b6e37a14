/** The single sign-on button (only when OIDC_* is configured): a plain form, so it works without JavaScript. */
export const SSO_TEXT = {
  button: (provider: string) => `Sign in with ${provider}`,
  or: "or",
};

export function SsoButton({ provider, returnTo }: { provider: string; returnTo: string }) {
  return (
    <form method="post" action="/api/auth/sso-start" className="mt-6" aria-label="single sign-on">
      <input type="hidden" name="next" value={returnTo} />
      <button type="submit" className="w-full rounded border border-slate-900 px-3 py-2">
        {SSO_TEXT.button(provider)}
      </button>
      <p className="mt-4 text-center text-xs text-slate-500">{SSO_TEXT.or}</p>
    </form>
  );
}
