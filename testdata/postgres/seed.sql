INSERT INTO customers VALUES
  (1, 'Ada Lovelace', 'ada@example.com', 'London', '2021-03-04', 0),
  (2, 'Grace Hopper', NULL, 'New York', '2022-11-30', 0),
  (3, 'Alan Turing', 'alan@example.com', 'London', NULL, 1),
  (4, 'Edsger Dijkstra', 'ewd@example.com', 'Austin', NULL, 0);

INSERT INTO products VALUES
  (1, 'SQL for Mortals', 'book', 29.5, '\x89504e470d0a1a0a0000000d49484452000000100000001008'),
  (2, 'Delete Everything: a game', 'game', 15, NULL),
  (3, 'Robot', 'toy', 42.25, NULL),
  (4, 'Drop Table Blocks', 'toy', 12, NULL);

INSERT INTO "order" (id, customer_id, placed_at, status) VALUES
  (1, 1, '2023-01-05 10:00:00+00', 'shipped'),
  (2, 1, '2023-02-11 09:30:00+00', 'shipped'),
  (3, 2, '2023-02-12 17:45:00+00', 'new'),
  (4, 4, '2023-03-01 08:15:00+00', 'cancelled');

INSERT INTO "Order Items" VALUES
  (1, 1, 2), (1, 3, 1), (2, 2, 1), (3, 4, 3), (4, 1, 1);

INSERT INTO drop_log VALUES
  (1, 'DROP TABLE users; -- just a note', 'admin'),
  (2, 'nothing to see', NULL);

INSERT INTO "SchoolStats" VALUES
  ('01100170109835', 'FAME Public Charter', 120, 300),
  ('01100170112607', 'Envision Academy', 45.5, 210),
  ('01100170118489', 'Aspire Lionel Wilson', NULL, 402);

INSERT INTO types VALUES (
  1,
  -32768, 2147483647, -9223372036854775808, 9007199254740993, 4294967295,
  1.5, 0.1, 'NaN', 'Infinity', '-Infinity',
  12.50, 123456789012345678901234567890.123456789, 'NaN', 'Infinity',
  true, false,
  '{"b": [1, 2.50], "a": null}', '{"b": [1, 2.50], "a": null}',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  'naïve text', 'short', 'ab', 'pg_name', 'happy',
  '192.168.0.1/24', '10.0.0.0/8', '08:00:2b:01:02:03',
  '1 day 02:03:04.5', '[1,10)', '(1.5,2)', '((0,0),(1,1))', '12.50', '<a>x</a>',
  B'1010', B'101',
  '\x0001ff', decode(repeat('ab', 40), 'hex'),
  '2024-01-05', '2024-01-05 10:00:00', '2024-01-05 10:00:00.25', '2024-01-05 10:00:00+00', 'infinity',
  '10:00:00', '10:00:00+02',
  '{1,2,NULL}', '{plain,"with space","quote\"and\\back",NULL,"NULL",""}', '{1.10,NaN}', '{{1,2},{3,4}}',
  '{t,f}', '{"2024-01-05 10:00:00+00"}', ARRAY['{"k": 1}'::jsonb], '{"\\x01ff"}',
  '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', '{sad,happy}', '{((0,0),(1,1));((2,2),(3,3))}',
  '{}', '[0:1]={7,8}',
  '(1,"x y")', 5, NULL
);
