import type { Metadata } from "next";
import { connection } from "next/server";
import { TrpcProvider } from "@/components/trpc/provider";
import "./globals.css";

export const metadata: Metadata = {
  title: "AI Job Runtime",
  description: "Schedule, run and watch AI analyses of your learning",
};

// Every page is rendered per request: Next can only put proxy.ts's CSP nonce on the scripts of a
// page it renders for that request, and a prerendered page's scripts would be blocked.
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        {/* First tab stop on every page: past the header and navigation to the page's own content. */}
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:ring-2 focus:ring-indigo-500"
        >
          Skip to main content
        </a>
        <TrpcProvider>{children}</TrpcProvider>
      </body>
    </html>
  );
}
