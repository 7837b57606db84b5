/**
 * The signed-in page's transport (web/src/transport.ts), made once when the page loads: its login
 * cookie authenticates the socket and the HTTP fallback. The widget's iframe never imports this: it
 * makes a transport of its own with its credential.
 */
import { createTransport } from "./transport.ts";

export const transport = createTransport();
export const api = transport.api;
