import { Overview } from "@/components/admin/overview";

export const metadata = { title: "Overview · Admin" };

export default function AdminPage() {
  return <Overview />;
}
