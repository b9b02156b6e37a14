import type { Metadata } from "next";
import { TrpcProvider } from "@/components/trpc/provider";
import "./globals.css";

export const metadata: Metadata = {
  title: "AI Job Runtime",
  description: "Schedule, run and watch AI analyses of your learning",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <TrpcProvider>{children}</TrpcProvider>
      </body>
    </html>
  );
}
