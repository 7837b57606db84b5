/**
 * Who asks a session's approvals when it has no page of its own: `asker = 'script'` for a session a
 * script made through the API (a bearer or API token). Its approvals are shown in every signed-in page
 * of its user; a page's, a widget's, MCP's and the CLI's sessions keep asking in their own place (NULL).
 */
export const scriptSessions = `
ALTER TABLE sessions ADD COLUMN asker TEXT CHECK (asker IN ('script'));
`;
