import { unsubscribeRequest, unsubscribePage } from "@/server/notifications/unsubscribe-route";

export const dynamic = "force-dynamic";

// The digest's signed unsubscribe link: GET shows a confirm button, POST (also RFC 8058 one-click) opts out.
export { unsubscribePage as GET, unsubscribeRequest as POST };
