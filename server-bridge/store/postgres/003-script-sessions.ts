/** Who asks a script's session's approvals (SQLite migration 008), in Postgres. */
export const scriptSessions = `
ALTER TABLE sessions ADD COLUMN asker TEXT CHECK (asker IN ('script'));
`;
