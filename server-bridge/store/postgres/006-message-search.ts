/** Each agent message's readable text for search (SQLite migration 011), in Postgres. */
export const messageSearch = `
ALTER TABLE agent_messages ADD COLUMN search TEXT;
`;
