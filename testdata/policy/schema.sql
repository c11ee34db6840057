-- A staff database for the policy corpus (tools/policy_test.go): the same
-- statements build it on SQLite and PostgreSQL. The values the policy
-- hides are distinctive, so a test can tell when one leaks.
CREATE TABLE departments (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE employees (
  id     INTEGER PRIMARY KEY,
  name   TEXT NOT NULL,
  dept   INTEGER NOT NULL REFERENCES departments(id),
  email  TEXT,
  salary INTEGER NOT NULL
);
CREATE INDEX employees_salary ON employees(salary);
CREATE TABLE api_tokens (
  id    INTEGER PRIMARY KEY,
  owner INTEGER NOT NULL REFERENCES employees(id),
  token TEXT NOT NULL
);
CREATE VIEW emp_public AS SELECT id, name, dept FROM employees;
CREATE VIEW emp_pay AS SELECT name, salary FROM employees;
CREATE VIEW token_owners AS SELECT e.name FROM employees e JOIN api_tokens t ON t.owner = e.id;
INSERT INTO departments VALUES (1, 'Research'), (2, 'Sales');
INSERT INTO employees VALUES
  (1, 'Ann', 1, 'ann.hidden@example.com', 913571),
  (2, 'Bob', 2, 'bob.hidden@example.com', 824683),
  (3, 'Cy', 2, NULL, 735791),
  (4, 'Di', 1, 'ann.hidden@example.com', 646802);
INSERT INTO api_tokens VALUES (1, 1, 'tok_live_7f3a9c0b'), (2, 2, 'tok_live_e41d22aa');
