-- tests/data/store_v1.sql: an archive as storbench wrote it at schema version 1
-- (before runs recorded whether they completed): the version 1 tables, as
-- lib/store/store.c's schema_v1 creates them, and two runs. test_store.c
-- opens it, and the upgrade to version 2 must find both runs complete.
PRAGMA journal_mode = WAL;
CREATE TABLE runs (  id INTEGER PRIMARY KEY AUTOINCREMENT,  started_unix INTEGER NOT NULL,  tool TEXT NOT NULL,  version TEXT NOT NULL,  command TEXT NOT NULL,  elapsed_s REAL);
CREATE TABLE run_host (  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,  PRIMARY KEY (run_id, pos)) WITHOUT ROWID;
CREATE TABLE run_labels (  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,  PRIMARY KEY (run_id, pos)) WITHOUT ROWID;
CREATE INDEX run_labels_kv ON run_labels (key, value);
CREATE TABLE targets (  id INTEGER PRIMARY KEY,  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, fs_type TEXT NOT NULL,  UNIQUE (run_id, pos));
CREATE TABLE target_info (  target_id INTEGER NOT NULL REFERENCES targets(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,  PRIMARY KEY (target_id, pos)) WITHOUT ROWID;
CREATE TABLE tests (  id INTEGER PRIMARY KEY,  target_id INTEGER NOT NULL REFERENCES targets(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,  complete INTEGER NOT NULL, error TEXT,  UNIQUE (target_id, pos));
CREATE TABLE test_params (  test_id INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,  PRIMARY KEY (test_id, pos)) WITHOUT ROWID;
CREATE TABLE measurements (  id INTEGER PRIMARY KEY,  test_id INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL,  value REAL, spread REAL,  UNIQUE (test_id, pos));
CREATE TABLE samples (  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,  pos INTEGER NOT NULL, value REAL,  PRIMARY KEY (measurement_id, pos)) WITHOUT ROWID;
INSERT INTO runs VALUES (1, 1733130000, 'storbench', '0.1.0', 'storbench sweep --bs 4k /mnt/ext4', 12.5);
INSERT INTO run_host VALUES (1, 0, 'hostname', 'pi4');
INSERT INTO run_labels VALUES (1, 0, 'drive', '6401');
INSERT INTO targets VALUES (1, 1, 0, '/mnt/ext4', 'directory', 'ext4');
INSERT INTO tests VALUES (1, 1, 0, 'sweep', 'write 4k', 1, NULL);
INSERT INTO test_params VALUES (1, 0, 'direction', 'write');
INSERT INTO measurements VALUES (1, 1, 0, 'throughput', 'B/s', 43725619.2, 874512.4);
INSERT INTO samples VALUES (1, 0, 43725619.2);
INSERT INTO runs VALUES (2, 1733216400, 'storbench', '0.1.0', 'storbench sweep --bs 4k /mnt/ext4', 3.0);
INSERT INTO targets VALUES (2, 2, 0, '/mnt/ext4', 'directory', 'ext4');
INSERT INTO tests VALUES (2, 2, 0, 'sweep', 'write 4k', 0, 'interrupted');
INSERT INTO measurements VALUES (2, 2, 0, 'throughput', 'B/s', 1000000.0, 0);
PRAGMA user_version = 1;
