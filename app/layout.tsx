import type { Metadata } from "next";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getMessages, getTranslations } from "next-intl/server";
import { connection } from "next/server";
import { TrpcProvider } from "@/components/trpc/provider";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  await connection();
  const t = await getTranslations("common");
  return { title: t("appTitle"), description: t("appDescription") };
}

// Every page is rendered per request: Next can only put proxy.ts's CSP nonce on the scripts of a
// page it renders for that request, and a prerendered page's scripts would be blocked.
// The language is the learner's (i18n/request.ts); the admin console stays English (app/admin/layout.tsx).
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  const locale = await getLocale();
  const messages = await getMessages();
  const t = await getTranslations("common");
  return (
    <html lang={locale}>
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <NextIntlClientProvider locale={locale} messages={messages}>
          {/* First tab stop on every page: past the header and navigation to the page's own content. */}
          <a
            href="#main"
            className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:ring-2 focus:ring-indigo-500"
          >
            {t("skipToMain")}
          </a>
          <TrpcProvider>{children}</TrpcProvider>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
