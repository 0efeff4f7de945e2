-- Golden case: three broken statements: each error is reported, the valid ones in between are still parsed.
CREATE SOURCE a (x BIGINT,, y STRING) WITH (connector = 'datagen');
CREATE SOURCE b (x BIGINT) WITH (connector = 'datagen');
CREATE VIEW v AS SELECT x FROM b WHERE;
CREATE SINK out FROM b WITH (connector 'stdout');
