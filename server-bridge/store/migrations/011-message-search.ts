/**
 * Each agent message's readable text, lower case, for finding a conversation by what was said in it
 * (agent/thread-search.ts). NULL: stored before the column existed, filled when its owner first searches.
 */
export const messageSearch = `
ALTER TABLE agent_messages ADD COLUMN search TEXT;
`;
