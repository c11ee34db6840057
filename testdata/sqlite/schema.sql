-- A small shop with the awkward names real databases have. Tests build a
-- fresh copy of it for every test (internal/dbtest).
CREATE TABLE customers (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  email      VARCHAR(120),
  city       TEXT,
  joined     DATE,
  delete_flag INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE products (
  id       INTEGER PRIMARY KEY,
  name     TEXT NOT NULL,
  category TEXT NOT NULL,       -- 'book', 'game', 'toy'
  price    DECIMAL(10,2) NOT NULL,
  photo    BLOB
);

CREATE TABLE "order" (
  id          INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  placed_at   DATETIME NOT NULL,
  status      TEXT NOT NULL DEFAULT 'new'  -- 'new', 'shipped', 'cancelled'
);
CREATE INDEX order_customer ON "order"(customer_id);

CREATE TABLE "Order Items" (
  order_id   INTEGER NOT NULL REFERENCES "order"(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity   INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
);

CREATE TABLE drop_log (
  id      INTEGER PRIMARY KEY,
  note    TEXT,
  "group" TEXT
);

CREATE TABLE SchoolStats (
  CDSCode                  TEXT PRIMARY KEY,
  "School Name"            TEXT,
  "Free Meal Count (K-12)" REAL,
  "Enrollment (K-12)"      REAL
);

CREATE VIEW customer_totals AS
  SELECT c.id, c.name, count(o.id) AS orders
  FROM customers c LEFT JOIN "order" o ON o.customer_id = c.id
  GROUP BY c.id;
