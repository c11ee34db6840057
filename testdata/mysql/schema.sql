-- The shop of testdata/sqlite in MySQL and MariaDB types, with the awkward
-- names real databases have. Tests build a fresh database from it
-- (internal/dbtest.MySQL).
CREATE TABLE customers (
  id          INT PRIMARY KEY,
  name        TEXT NOT NULL,
  email       VARCHAR(120),
  city        TEXT,
  joined      DATE,
  delete_flag INT NOT NULL DEFAULT 0 COMMENT '1 when the customer asked to be forgotten'
) COMMENT 'People who bought something';

CREATE TABLE products (
  id       INT PRIMARY KEY,
  name     TEXT NOT NULL,
  category VARCHAR(10) NOT NULL,
  price    DECIMAL(10,2) NOT NULL COMMENT 'Price in euros, VAT included',
  photo    BLOB
);

CREATE TABLE `order` (
  id          INT AUTO_INCREMENT PRIMARY KEY,
  customer_id INT NOT NULL,
  placed_at   DATETIME NOT NULL,
  status      VARCHAR(10) NOT NULL DEFAULT 'new' COMMENT 'new, shipped or cancelled',
  KEY order_customer (customer_id),
  FOREIGN KEY (customer_id) REFERENCES customers (id)
);

CREATE TABLE `Order Items` (
  order_id   INT NOT NULL,
  product_id INT NOT NULL,
  quantity   INT NOT NULL,
  PRIMARY KEY (order_id, product_id),
  FOREIGN KEY (order_id) REFERENCES `order` (id),
  FOREIGN KEY (product_id) REFERENCES products (id)
);

CREATE TABLE drop_log (
  id      INT PRIMARY KEY,
  note    TEXT,
  `group` TEXT
);

CREATE TABLE `SchoolStats` (
  `CDSCode`                VARCHAR(14) PRIMARY KEY,
  `School Name`            TEXT,
  `Free Meal Count (K-12)` DOUBLE,
  `Enrollment (K-12)`      DOUBLE
);

CREATE VIEW customer_totals AS
  SELECT c.id, c.name, COUNT(o.id) AS orders
  FROM customers c LEFT JOIN `order` o ON o.customer_id = c.id
  GROUP BY c.id, c.name;
