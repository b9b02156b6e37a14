import { WebhookDeliveries } from "@/components/admin/webhook-deliveries";
import { requireAdminPage } from "@/server/auth/page-guards";

export const metadata = { title: "Webhooks · Admin" };

export default async function WebhooksPage() {
  await requireAdminPage();
  return <WebhookDeliveries />;
}
