-- Trigram search (fiscal NCM lookup and fuzzy menu search).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
