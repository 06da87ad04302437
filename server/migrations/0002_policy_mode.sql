-- How an episode's safety policies act on forbidden calls: 'enforce' (not executed) or 'audit'
-- (executed and recorded as violations). Episodes recorded before policies existed ran unguarded
-- by any policy, but replay now runs them under the default.
ALTER TABLE episodes ADD COLUMN mode TEXT NOT NULL DEFAULT 'enforce';
