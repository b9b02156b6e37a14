import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The database client a read runs on when it was sent to a standby (server/read-replica.ts):
 * getDb() answers this client inside such a read, so the console's read services need no
 * parameter for it. Typed loosely here so that db.ts and read-replica.ts both import this file
 * without importing each other.
 */
export const readScope = new AsyncLocalStorage<unknown>();
