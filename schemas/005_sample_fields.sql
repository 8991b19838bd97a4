-- The three JTL fields the samples table did not keep (research/jmeter.md §1.1, §2.2):
-- JMeter's Filename (CSV column; XML <responseFile>) and Encoding (CSV column; XML de=)
-- fields, and the sample_variables a test plan saves (CSV: quoted header names; XML: extra
-- attributes, XStream-escaped). Variables map name -> value; an unset variable (CSV
-- `null`, XML "") is NULL. Rows stored before this migration have all three NULL.
ALTER TABLE samples ADD COLUMN filename VARCHAR;
ALTER TABLE samples ADD COLUMN encoding VARCHAR;
ALTER TABLE samples ADD COLUMN variables MAP(VARCHAR, VARCHAR);
