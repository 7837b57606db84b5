/** A conversation's revision, bumped by every write to its messages (SQLite migration 009), in Postgres. */
export const threadRevisions = `
ALTER TABLE agent_threads ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION agent_messages_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE agent_threads SET rev = rev + 1 WHERE id = OLD.thread_id;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.thread_id IS DISTINCT FROM OLD.thread_id) THEN
    UPDATE agent_threads SET rev = rev + 1 WHERE id = NEW.thread_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER agent_messages_rev AFTER INSERT OR UPDATE OR DELETE ON agent_messages
  FOR EACH ROW EXECUTE FUNCTION agent_messages_rev();
`;
