INSERT INTO customers VALUES
  (1, 'Ada Lovelace', 'ada@example.com', 'London', '2021-03-04', 0),
  (2, 'Grace Hopper', NULL, 'New York', '2022-11-30', 0),
  (3, 'Alan Turing', 'alan@example.com', 'London', NULL, 1),
  (4, 'Edsger Dijkstra', 'ewd@example.com', 'Austin', NULL, 0);

INSERT INTO products VALUES
  (1, 'SQL for Mortals', 'book', 29.5, X'89504e470d0a1a0a0000000d49484452000000100000001008'),
  (2, 'Delete Everything: a game', 'game', 15, NULL),
  (3, 'Robot', 'toy', 42.25, NULL),
  (4, 'Drop Table Blocks', 'toy', 12, NULL);

INSERT INTO `order` (id, customer_id, placed_at, status) VALUES
  (1, 1, '2023-01-05 10:00:00', 'shipped'),
  (2, 1, '2023-02-11 09:30:00', 'shipped'),
  (3, 2, '2023-02-12 17:45:00', 'new'),
  (4, 4, '2023-03-01 08:15:00', 'cancelled');

INSERT INTO `Order Items` VALUES
  (1, 1, 2), (1, 3, 1), (2, 2, 1), (3, 4, 3), (4, 1, 1);

INSERT INTO drop_log VALUES
  (1, 'DROP TABLE users; -- just a note', 'admin'),
  (2, 'nothing to see', NULL);

INSERT INTO `SchoolStats` VALUES
  ('01100170109835', 'FAME Public Charter', 120, 300),
  ('01100170112607', 'Envision Academy', 45.5, 210),
  ('01100170118489', 'Aspire Lionel Wilson', NULL, 402);

ANALYZE TABLE customers, products, `order`, `Order Items`, drop_log, `SchoolStats`;
