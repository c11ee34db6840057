-- Mercy Valley Regional Hospital: a small hospital's clinical and billing schema.
PRAGMA foreign_keys = ON;

CREATE TABLE departments (
  dept_id INTEGER PRIMARY KEY,
  dept_name TEXT NOT NULL,
  floor INTEGER,
  phone_ext TEXT,
  head_physician_id INTEGER
);

CREATE TABLE physicians (
  physician_id INTEGER PRIMARY KEY,
  first_nm TEXT NOT NULL,
  last_nm TEXT NOT NULL,
  specialty TEXT,
  dept_id INTEGER REFERENCES departments(dept_id),
  license_no TEXT UNIQUE,
  hire_dt DATE,
  is_attending INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE wards (
  ward_id INTEGER PRIMARY KEY,
  ward_code TEXT NOT NULL UNIQUE,
  ward_name TEXT NOT NULL,
  dept_id INTEGER,
  bed_count INTEGER,
  nurse_station_ext TEXT
);

CREATE TABLE insurance_plans (
  plan_id INTEGER PRIMARY KEY,
  payer_name TEXT NOT NULL,
  plan_name TEXT NOT NULL,
  plan_type TEXT,
  copay_amt REAL,
  deductible_amt REAL
);

CREATE TABLE patients (
  patient_id INTEGER PRIMARY KEY,
  mrn TEXT NOT NULL UNIQUE,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  dob DATE,
  sex TEXT,
  blood_type TEXT,
  addr_line1 TEXT,
  city TEXT,
  state TEXT,
  zipcode TEXT,
  phone TEXT,
  primary_ins_id INTEGER REFERENCES insurance_plans(plan_id),
  emerg_contact_nm TEXT,
  emerg_contact_phone TEXT
);

CREATE TABLE admissions (
  admission_id INTEGER PRIMARY KEY,
  patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
  ward_id INTEGER REFERENCES wards(ward_id),
  attending_id INTEGER REFERENCES physicians(physician_id),
  admit_dt DATETIME NOT NULL,
  discharge_dt DATETIME,
  admit_type TEXT,
  dx_code TEXT,
  dx_desc TEXT,
  discharge_disposition TEXT,
  room_no TEXT,
  bed_no TEXT
);

CREATE TABLE medications (
  med_id INTEGER PRIMARY KEY,
  generic_name TEXT NOT NULL,
  brand_name TEXT,
  drug_class TEXT,
  strength TEXT,
  form TEXT,
  unit_cost REAL
);

CREATE TABLE prescriptions (
  rx_id INTEGER PRIMARY KEY,
  patient_id INTEGER NOT NULL,
  prescriber_id INTEGER,
  med_id INTEGER NOT NULL,
  admission_id INTEGER,
  dose TEXT,
  freq TEXT,
  route TEXT,
  start_dt DATE,
  end_dt DATE,
  refills INTEGER DEFAULT 0,
  is_prn INTEGER DEFAULT 0
);

CREATE TABLE lab_tests (
  test_code TEXT PRIMARY KEY,
  test_name TEXT NOT NULL,
  specimen_type TEXT,
  ref_low REAL,
  ref_high REAL,
  units TEXT,
  loinc TEXT
);

CREATE TABLE labresults (
  result_id INTEGER PRIMARY KEY,
  admission_id INTEGER NOT NULL,
  test_code TEXT NOT NULL,
  collected_at DATETIME,
  result_val REAL,
  abnormal_flag TEXT,
  resulted_by TEXT
);

CREATE TABLE appointments (
  appt_id INTEGER PRIMARY KEY,
  patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
  physician_id INTEGER NOT NULL REFERENCES physicians(physician_id),
  appt_dt DATE NOT NULL,
  appt_time TEXT,
  visit_reason TEXT,
  status TEXT NOT NULL,
  clinic_room TEXT,
  duration_min INTEGER
);

CREATE TABLE procedures (
  proc_id INTEGER PRIMARY KEY,
  admission_id INTEGER NOT NULL,
  cpt_code TEXT,
  proc_desc TEXT,
  performed_by INTEGER,
  proc_dt DATE,
  anesthesia_type TEXT,
  duration_min INTEGER
);

CREATE TABLE invoices (
  invoice_id INTEGER PRIMARY KEY,
  admission_id INTEGER REFERENCES admissions(admission_id),
  patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
  plan_id INTEGER REFERENCES insurance_plans(plan_id),
  invoice_dt DATE,
  total_amt REAL NOT NULL,
  ins_paid_amt REAL,
  pt_paid_amt REAL,
  balance_due REAL,
  status TEXT
);

INSERT INTO departments VALUES (1, 'Emergency Medicine', 1, '2100', 1);
INSERT INTO departments VALUES (2, 'Cardiology', 3, '2300', 2);
INSERT INTO departments VALUES (3, 'Orthopedics', 4, '2400', 3);
INSERT INTO departments VALUES (4, 'Oncology', 5, '2500', 4);
INSERT INTO departments VALUES (5, 'Pediatrics', 2, '2200', 5);
INSERT INTO departments VALUES (6, 'Internal Medicine', 3, '2310', 6);
INSERT INTO departments VALUES (7, 'Obstetrics and Gynecology', 2, '2210', 7);
INSERT INTO departments VALUES (8, 'Neurology', 4, '2410', 8);

INSERT INTO physicians VALUES (1, 'Alan', 'Reyes', 'Emergency Medicine', 1, 'MD361300', '2008-03-07', 1);
INSERT INTO physicians VALUES (2, 'Grace', 'Whitfield', 'Cardiology', 2, 'MD344961', '2008-05-04', 1);
INSERT INTO physicians VALUES (3, 'Samuel', 'Osei', 'Orthopedic Surgery', 3, 'MD273112', '2009-05-02', 1);
INSERT INTO physicians VALUES (4, 'Helen', 'Park', 'Medical Oncology', 4, 'MD189381', '2006-07-08', 1);
INSERT INTO physicians VALUES (5, 'Victor', 'Almeida', 'Pediatrics', 5, 'MD247127', '2010-02-24', 1);
INSERT INTO physicians VALUES (6, 'Irene', 'Novak', 'Internal Medicine', 6, 'MD140092', '2012-03-25', 1);
INSERT INTO physicians VALUES (7, 'Marcus', 'Bell', 'Obstetrics', 7, 'MD982429', '2015-03-10', 1);
INSERT INTO physicians VALUES (8, 'Dana', 'Kaplan', 'Neurology', 8, 'MD755157', '2008-12-04', 1);
INSERT INTO physicians VALUES (9, 'Omar', 'Haddad', 'Emergency Medicine', 1, 'MD201404', '2019-10-31', 1);
INSERT INTO physicians VALUES (10, 'Ruth', 'Lindqvist', 'Cardiology', 2, 'MD920054', '2011-11-01', 1);
INSERT INTO physicians VALUES (11, 'Peter', 'Ng', 'Orthopedic Surgery', 3, 'MD665169', '2008-09-08', 1);
INSERT INTO physicians VALUES (12, 'Claire', 'Dubois', 'Medical Oncology', 4, 'MD683714', '2018-08-01', 1);
INSERT INTO physicians VALUES (13, 'Ethan', 'Brooks', 'Pediatrics', 5, 'MD445438', '2019-07-16', 1);
INSERT INTO physicians VALUES (14, 'Nadia', 'Rahman', 'Internal Medicine', 6, 'MD679734', '2018-05-29', 1);
INSERT INTO physicians VALUES (15, 'Louis', 'Fontaine', 'Obstetrics', 7, 'MD364232', '2021-02-14', 1);
INSERT INTO physicians VALUES (16, 'Sofia', 'Castillo', 'Neurology', 8, 'MD589765', '2013-11-13', 1);
INSERT INTO physicians VALUES (17, 'Gregory', 'Hale', 'Emergency Medicine', 1, 'MD708108', '2018-10-03', 0);
INSERT INTO physicians VALUES (18, 'Anita', 'Desai', 'Cardiology', 2, 'MD211034', '2018-02-23', 1);
INSERT INTO physicians VALUES (19, 'Frank', 'Morrow', 'Orthopedic Surgery', 3, 'MD482274', '2016-06-19', 0);
INSERT INTO physicians VALUES (20, 'Julia', 'Stern', 'Medical Oncology', 4, 'MD561486', '2017-05-07', 0);

INSERT INTO wards VALUES (1, 'ED', 'Emergency Department', 1, 24, '2101');
INSERT INTO wards VALUES (2, 'CCU', 'Cardiac Care Unit', 2, 12, '2301');
INSERT INTO wards VALUES (3, '4W', 'Orthopedic Ward 4 West', 3, 20, '2401');
INSERT INTO wards VALUES (4, '5E', 'Oncology Ward 5 East', 4, 18, '2501');
INSERT INTO wards VALUES (5, 'PEDS', 'Pediatric Ward', 5, 16, '2201');
INSERT INTO wards VALUES (6, '3M', 'Medical Ward 3 Main', 6, 30, '2311');
INSERT INTO wards VALUES (7, 'L&D', 'Labor and Delivery', 7, 10, '2211');
INSERT INTO wards VALUES (8, 'NICU', 'Neonatal Intensive Care Unit', 5, 8, '2202');
INSERT INTO wards VALUES (9, 'ICU', 'Intensive Care Unit', 6, 14, '2312');
INSERT INTO wards VALUES (10, '4N', 'Neurology Ward 4 North', 8, 12, '2411');

INSERT INTO insurance_plans VALUES (1, 'Blue Cross Blue Shield', 'BCBS Silver PPO', 'PPO', 30.0, 2000.0);
INSERT INTO insurance_plans VALUES (2, 'Aetna', 'Aetna Choice POS II', 'POS', 25.0, 1500.0);
INSERT INTO insurance_plans VALUES (3, 'UnitedHealthcare', 'UHC Navigate HMO', 'HMO', 20.0, 1000.0);
INSERT INTO insurance_plans VALUES (4, 'Medicare', 'Medicare Part A', 'Medicare', 0.0, 1632.0);
INSERT INTO insurance_plans VALUES (5, 'State Medicaid', 'Medicaid Managed Care', 'Medicaid', 0.0, 0.0);
INSERT INTO insurance_plans VALUES (6, 'Kaiser Permanente', 'Kaiser Gold HMO', 'HMO', 15.0, 500.0);
INSERT INTO insurance_plans VALUES (7, 'Cigna', 'Cigna Open Access Plus', 'PPO', 35.0, 2500.0);
INSERT INTO insurance_plans VALUES (8, 'Humana', 'Humana Gold Plus', 'Medicare Advantage', 10.0, 0.0);

INSERT INTO patients VALUES (1, 'MV100037', 'Maria', 'Moore', '1962-12-13', 'F', 'AB+', '665 Elm Dr', 'Vancouver', 'WA', '98660', '541-555-6581', 3, 'Susan Moore', '541-555-2971');
INSERT INTO patients VALUES (2, 'MV100074', 'Elizabeth', 'Allen', '2021-03-18', 'F', 'AB-', '6608 Pine Rd', 'Eugene', 'OR', '97401', '541-555-4441', 7, 'Matthew Allen', '541-555-5420');
INSERT INTO patients VALUES (3, 'MV100111', 'Melissa', 'Sanchez', '2012-07-03', 'F', 'A-', '9629 Pine Rd', 'Eugene', 'OR', '97401', '541-555-9814', 4, 'Thomas Sanchez', NULL);
INSERT INTO patients VALUES (4, 'MV100148', 'Robert', 'Anderson', '1963-03-11', 'M', 'A-', '9317 River Rd', 'Springfield', 'OR', '97477', '541-555-9694', 4, 'Patricia Anderson', '541-555-6375');
INSERT INTO patients VALUES (5, 'MV100185', 'Wei', 'Walker', '1986-06-04', 'M', 'A+', '8682 Coburg Rd', 'Springfield', 'OR', '97477', '541-555-8419', 4, 'Sarah Walker', NULL);
INSERT INTO patients VALUES (6, 'MV100222', 'Priya', 'Lewis', '1956-05-11', 'F', 'B-', '3435 Maple Ave', 'Eugene', 'OR', '97401', '541-555-8981', 1, 'Susan Lewis', '541-555-8024');
INSERT INTO patients VALUES (7, 'MV100259', 'Fatima', 'Jones', '1995-07-27', 'F', 'B+', '5617 Franklin Blvd', 'Salem', 'OR', '97301', '541-555-8817', 8, 'Patricia Jones', '541-555-3285');
INSERT INTO patients VALUES (8, 'MV100296', 'Kevin', 'Lopez', '1956-04-11', 'M', 'A+', '1170 Main St', 'Albany', 'OR', '97321', '541-555-9032', 4, 'Patricia Lopez', '541-555-9745');
INSERT INTO patients VALUES (9, 'MV100333', 'Joshua', 'Lewis', '1982-10-06', 'M', 'AB+', '3256 Elm Dr', 'Eugene', 'OR', '97401', '541-555-5050', 4, 'Robert Lewis', '541-555-7095');
INSERT INTO patients VALUES (10, 'MV100370', 'Sarah', 'Allen', '2007-03-26', 'F', 'B+', '4906 Maple Ave', 'Eugene', 'OR', '97401', '541-555-4658', 5, 'William Allen', '541-555-1512');
INSERT INTO patients VALUES (11, 'MV100407', 'Charles', 'Johnson', '1982-02-07', 'M', 'B+', '6475 Pine Rd', 'Eugene', 'OR', '97401', '541-555-5266', NULL, 'Nancy Johnson', '541-555-2006');
INSERT INTO patients VALUES (12, 'MV100444', 'Patricia', 'Gonzalez', '2000-02-28', 'F', 'A-', '5522 Willamette St', 'Eugene', 'OR', '97401', '541-555-8867', 7, 'Lisa Gonzalez', '541-555-5585');
INSERT INTO patients VALUES (13, 'MV100481', 'Donald', 'Lewis', '2008-01-25', 'M', 'AB+', '7741 Elm Dr', 'Salem', 'OR', '97301', '541-555-3089', 2, 'Kenneth Lewis', '541-555-2865');
INSERT INTO patients VALUES (14, 'MV100518', 'Andrew', 'Smith', '1967-02-02', 'M', 'A+', '8979 Maple Ave', 'Eugene', 'OR', '97401', '541-555-9694', 3, 'Deborah Smith', NULL);
INSERT INTO patients VALUES (15, 'MV100555', 'Joshua', 'Clark', '1976-11-19', 'M', 'AB+', '4061 River Rd', 'Roseburg', 'OR', '97470', '541-555-4062', 3, 'Carol Clark', '541-555-2615');
INSERT INTO patients VALUES (16, 'MV100592', 'Joshua', 'Nguyen', '1963-08-11', 'M', 'O-', '8269 Main St', 'Eugene', 'OR', '97401', '541-555-9788', 4, 'Mark Nguyen', NULL);
INSERT INTO patients VALUES (17, 'MV100629', 'Nancy', 'Martinez', '2020-02-28', 'F', 'B+', '5931 Gateway St', 'Eugene', 'OR', '97401', '541-555-1154', 1, 'Anthony Martinez', '541-555-3869');
INSERT INTO patients VALUES (18, 'MV100666', 'Joseph', 'Davis', '1949-11-10', 'M', 'O+', '1284 Cedar Ln', 'Bend', 'OR', '97701', '541-555-6097', 4, 'Donald Davis', '541-555-2421');
INSERT INTO patients VALUES (19, 'MV100703', 'Richard', 'Hill', '1984-12-25', 'M', 'A+', '2662 Coburg Rd', 'Salem', 'OR', '97301', '541-555-8355', 4, 'Olga Hill', '541-555-2046');
INSERT INTO patients VALUES (20, 'MV100740', 'Patricia', 'Williams', '1940-03-12', 'F', 'O+', '2316 River Rd', 'Springfield', 'OR', '97477', '541-555-4850', 4, 'Matthew Williams', '541-555-9510');
INSERT INTO patients VALUES (21, 'MV100777', 'Priya', 'Harris', '1989-07-03', 'F', 'O+', '2172 River Rd', 'Springfield', 'OR', '97477', '541-555-5367', 8, 'Karen Harris', NULL);
INSERT INTO patients VALUES (22, 'MV100814', 'Joshua', 'Wilson', '1988-01-09', 'M', 'O+', '3290 Cedar Ln', 'Eugene', 'OR', '97401', '541-555-3300', 7, 'Deborah Wilson', '541-555-7156');
INSERT INTO patients VALUES (23, 'MV100851', 'Nancy', 'Taylor', '2013-04-26', 'F', 'A-', '6689 River Rd', 'Vancouver', 'WA', '98660', '541-555-9906', 4, 'Paul Taylor', NULL);
INSERT INTO patients VALUES (24, 'MV100888', 'Donald', 'Lewis', '2008-03-17', 'M', 'A-', '1112 Elm Dr', 'Eugene', 'OR', '97401', '541-555-7607', 5, 'Kevin Lewis', '541-555-5358');
INSERT INTO patients VALUES (25, 'MV100925', 'Elizabeth', 'Kowalski', '1939-07-18', 'F', 'B+', '2950 Franklin Blvd', 'Eugene', 'OR', '97401', '541-555-7036', NULL, 'Kevin Kowalski', '541-555-9238');
INSERT INTO patients VALUES (26, 'MV100962', 'Andrew', 'Perez', '2000-11-19', 'M', 'O-', '2995 Maple Ave', 'Eugene', 'OR', '97401', '541-555-4280', 1, 'Sandra Perez', NULL);
INSERT INTO patients VALUES (27, 'MV100999', 'Lisa', 'Yamamoto', '2016-12-08', 'F', 'A-', '7128 Coburg Rd', 'Albany', 'OR', '97321', '541-555-8270', 6, 'Patricia Yamamoto', '541-555-3240');
INSERT INTO patients VALUES (28, 'MV101036', 'Wei', 'Kowalski', '1951-06-21', 'M', 'O-', '4711 Coburg Rd', 'Roseburg', 'OR', '97470', '541-555-4117', 4, 'William Kowalski', '541-555-3343');
INSERT INTO patients VALUES (29, 'MV101073', 'Matthew', 'Miller', '1957-02-22', 'M', 'O+', '9685 Gateway St', 'Corvallis', 'OR', '97330', '541-555-8217', 3, 'Amanda Miller', '541-555-3203');
INSERT INTO patients VALUES (30, 'MV101110', 'Fatima', 'Moore', '1976-04-25', 'F', 'AB-', '4178 Elm Dr', 'Bend', 'OR', '97701', '541-555-5344', 6, 'Hiroshi Moore', '541-555-3644');
INSERT INTO patients VALUES (31, 'MV101147', 'Jennifer', 'Walker', '1991-08-11', 'F', 'O+', '6884 Cedar Ln', 'Springfield', 'OR', '97477', '541-555-3295', 5, 'Hiroshi Walker', '541-555-4865');
INSERT INTO patients VALUES (32, 'MV101184', 'Sandra', 'Miller', '1989-08-10', 'F', 'AB+', '7453 Maple Ave', 'Salem', 'OR', '97301', '541-555-1647', 7, 'Susan Miller', '541-555-4446');
INSERT INTO patients VALUES (33, 'MV101221', 'Kenneth', 'Scott', '1992-08-31', 'M', 'AB-', '1844 Gateway St', 'Eugene', 'OR', '97401', '541-555-7428', 5, 'Olga Scott', '541-555-2681');
INSERT INTO patients VALUES (34, 'MV101258', 'Daniel', 'Patel', '2004-12-03', 'M', 'AB-', '6371 Franklin Blvd', 'Corvallis', 'OR', '97330', '541-555-1702', 4, 'Sarah Patel', '541-555-6078');
INSERT INTO patients VALUES (35, 'MV101295', 'Karen', 'Taylor', '1998-05-05', 'F', 'O+', '1252 Oak St', 'Salem', 'OR', '97301', '541-555-5413', 4, 'Carol Taylor', '541-555-7698');
INSERT INTO patients VALUES (36, 'MV101332', 'Sandra', 'Patel', '1967-08-20', 'F', 'O+', '442 Harlow Rd', 'Springfield', 'OR', '97477', '541-555-1519', 8, 'William Patel', NULL);
INSERT INTO patients VALUES (37, 'MV101369', 'Donna', 'Rodriguez', '1957-02-28', 'F', 'AB+', '4769 Maple Ave', 'Springfield', 'OR', '97477', '541-555-1152', 6, 'Donald Rodriguez', '541-555-7342');
INSERT INTO patients VALUES (38, 'MV101406', 'Donna', 'Harris', '1979-03-05', 'F', 'O+', '6473 Maple Ave', 'Corvallis', 'OR', '97330', '541-555-4478', 4, 'Elizabeth Harris', '541-555-2632');
INSERT INTO patients VALUES (39, 'MV101443', 'Paul', 'Lewis', '2004-04-16', 'M', 'B+', '9623 Willamette St', 'Salem', 'OR', '97301', '541-555-3065', 4, 'Andrew Lewis', '541-555-8441');
INSERT INTO patients VALUES (40, 'MV101480', 'Melissa', 'Scott', '2006-04-15', 'F', 'O-', '5629 Pine Rd', 'Springfield', 'OR', '97477', '541-555-8846', 4, 'Amanda Scott', '541-555-8469');
INSERT INTO patients VALUES (41, 'MV101517', 'Patricia', 'Davis', '1954-06-16', 'F', 'B+', '2088 Maple Ave', 'Albany', 'OR', '97321', '541-555-1146', 3, 'Fatima Davis', '541-555-9381');
INSERT INTO patients VALUES (42, 'MV101554', 'Steven', 'Torres', '1960-05-01', 'M', 'AB+', '8080 Main St', 'Springfield', 'OR', '97477', '541-555-9176', 3, 'Fatima Torres', '541-555-9032');
INSERT INTO patients VALUES (43, 'MV101591', 'Betty', 'Harris', '2013-04-29', 'F', 'O-', '7366 Cedar Ln', 'Albany', 'OR', '97321', '541-555-5475', 8, 'Mark Harris', '541-555-9312');
INSERT INTO patients VALUES (44, 'MV101628', 'James', 'Clark', '1993-11-12', 'M', 'A+', '1359 Maple Ave', 'Albany', 'OR', '97321', '541-555-8264', 4, 'Donald Clark', '541-555-9642');
INSERT INTO patients VALUES (45, 'MV101665', 'Lisa', 'Flores', '1937-06-08', 'F', 'O+', '9217 River Rd', 'Salem', 'OR', '97301', '541-555-8796', 5, 'Deborah Flores', '541-555-4376');
INSERT INTO patients VALUES (46, 'MV101702', 'George', 'Sanchez', '1974-10-24', 'M', 'AB-', '8542 Main St', 'Corvallis', 'OR', '97330', '541-555-5047', 8, 'Kevin Sanchez', '541-555-8692');
INSERT INTO patients VALUES (47, 'MV101739', 'Betty', 'White', '2021-02-15', 'F', 'O+', '3809 Gateway St', 'Albany', 'OR', '97321', '541-555-2738', 4, 'Susan White', '541-555-4201');
INSERT INTO patients VALUES (48, 'MV101776', 'Carol', 'Young', '1937-03-16', 'F', 'O+', '5226 Main St', 'Roseburg', 'OR', '97470', '541-555-8142', 8, 'Kevin Young', '541-555-2654');
INSERT INTO patients VALUES (49, 'MV101813', 'Richard', 'Perez', '2020-02-04', 'M', 'AB-', '3407 Pine Rd', 'Eugene', 'OR', '97401', '541-555-2924', 5, 'James Perez', '541-555-2685');
INSERT INTO patients VALUES (50, 'MV101850', 'Steven', 'Patel', '1992-06-15', 'M', 'A+', '8846 River Rd', 'Roseburg', 'OR', '97470', '541-555-2688', 6, 'Paul Patel', '541-555-1338');
INSERT INTO patients VALUES (51, 'MV101887', 'Susan', 'Scott', '1938-01-29', 'F', 'A-', '112 Pine Rd', 'Eugene', 'OR', '97401', '541-555-5216', 7, 'Donald Scott', '541-555-3734');
INSERT INTO patients VALUES (52, 'MV101924', 'William', 'Ramirez', '1957-09-29', 'M', 'B+', '1023 Main St', 'Vancouver', 'WA', '98660', '541-555-1983', 7, 'Patricia Ramirez', '541-555-9559');
INSERT INTO patients VALUES (53, 'MV101961', 'Kenneth', 'Williams', '1992-12-29', 'M', 'O-', '5641 Franklin Blvd', 'Eugene', 'OR', '97401', '541-555-7912', 1, 'Betty Williams', '541-555-5892');
INSERT INTO patients VALUES (54, 'MV101998', 'Olga', 'Torres', '2018-07-16', 'F', 'O+', '8487 Maple Ave', 'Springfield', 'OR', '97477', '541-555-3772', 4, 'Lisa Torres', '541-555-8290');
INSERT INTO patients VALUES (55, 'MV102035', 'Amanda', 'Kowalski', '1958-03-23', 'F', 'A-', '9682 Pine Rd', 'Bend', 'OR', '97701', '541-555-2263', 4, 'Olga Kowalski', NULL);
INSERT INTO patients VALUES (56, 'MV102072', 'Hiroshi', 'Robinson', '1953-03-28', 'M', 'AB+', '6399 Gateway St', 'Salem', 'OR', '97301', '541-555-5583', 8, 'Robert Robinson', '541-555-3455');
INSERT INTO patients VALUES (57, 'MV102109', 'Robert', 'Jones', '1990-09-10', 'M', 'A+', '7732 Maple Ave', 'Eugene', 'OR', '97401', '541-555-3261', NULL, 'Richard Jones', NULL);
INSERT INTO patients VALUES (58, 'MV102146', 'Jennifer', 'Clark', '1940-02-27', 'F', 'A+', '1782 Coburg Rd', 'Vancouver', 'WA', '98660', '541-555-3122', 1, 'Mark Clark', '541-555-4120');
INSERT INTO patients VALUES (59, 'MV102183', 'Robert', 'Chen', '2020-12-04', 'M', 'O+', '9695 Elm Dr', 'Springfield', 'OR', '97477', '541-555-6479', 2, 'Thomas Chen', '541-555-7559');
INSERT INTO patients VALUES (60, 'MV102220', 'Susan', 'Garcia', '2018-10-07', 'F', 'O+', '2945 Pine Rd', 'Albany', 'OR', '97321', '541-555-1880', 6, 'Maria Garcia', NULL);
INSERT INTO patients VALUES (61, 'MV102257', 'Lisa', 'Yamamoto', '1947-03-24', 'F', 'A-', '6243 Elm Dr', 'Springfield', 'OR', '97477', '541-555-6707', 4, 'Melissa Yamamoto', '541-555-2107');
INSERT INTO patients VALUES (62, 'MV102294', 'James', 'Clark', '1977-07-02', 'M', 'A-', '9978 Franklin Blvd', 'Salem', 'OR', '97301', '541-555-4769', 4, 'Sandra Clark', '541-555-3547');
INSERT INTO patients VALUES (63, 'MV102331', 'Susan', 'Gonzalez', '1967-12-17', 'F', 'O+', '3959 Harlow Rd', 'Eugene', 'OR', '97401', '541-555-4665', 1, 'Donna Gonzalez', '541-555-6115');
INSERT INTO patients VALUES (64, 'MV102368', 'Nancy', 'Ramirez', '1958-10-04', 'F', 'O-', '8086 Pine Rd', 'Eugene', 'OR', '97401', '541-555-4509', 1, 'William Ramirez', NULL);
INSERT INTO patients VALUES (65, 'MV102405', 'Maria', 'Rodriguez', '1948-09-08', 'F', 'O-', '6996 Cedar Ln', 'Albany', 'OR', '97321', '541-555-8221', 5, 'Wei Rodriguez', '541-555-3466');
INSERT INTO patients VALUES (66, 'MV102442', 'Elizabeth', 'Sanchez', '1965-02-05', 'F', 'A+', '4748 Gateway St', 'Eugene', 'OR', '97401', '541-555-1744', 5, 'Maria Sanchez', '541-555-8913');
INSERT INTO patients VALUES (67, 'MV102479', 'Jessica', 'Patel', '1956-03-30', 'F', 'O-', '4512 Maple Ave', 'Salem', 'OR', '97301', '541-555-1706', 7, 'Jennifer Patel', '541-555-9077');
INSERT INTO patients VALUES (68, 'MV102516', 'Daniel', 'Hill', '2021-03-26', 'M', 'B+', '6424 Harlow Rd', 'Roseburg', 'OR', '97470', '541-555-2056', 1, 'Matthew Hill', '541-555-4914');
INSERT INTO patients VALUES (69, 'MV102553', 'Patricia', 'Wilson', '1936-11-05', 'F', 'B-', '9521 Main St', 'Albany', 'OR', '97321', '541-555-5213', 5, 'Patricia Wilson', '541-555-9041');
INSERT INTO patients VALUES (70, 'MV102590', 'Joshua', 'Harris', '2010-10-08', 'M', 'A-', '4289 Main St', 'Springfield', 'OR', '97477', '541-555-3727', 2, 'David Harris', '541-555-1059');

INSERT INTO admissions VALUES (1, 36, 8, 5, '2025-02-24 12:13', '2025-03-01 20:13', 'Emergency', 'P07.30', 'Preterm newborn', 'Home', 'NICU-06', 'A');
INSERT INTO admissions VALUES (2, 6, 9, 14, '2025-08-15 18:53', '2025-08-17 22:53', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Home with home health', 'ICU-15', 'A');
INSERT INTO admissions VALUES (3, 34, 2, 18, '2025-03-06 20:03', '2025-03-13 02:03', 'Emergency', 'I21.4', 'Non-ST elevation myocardial infarction', 'Home with home health', 'CCU-12', 'B');
INSERT INTO admissions VALUES (4, 31, 2, 18, '2025-05-24 19:56', '2025-05-27 23:56', 'Emergency', 'I50.9', 'Heart failure, unspecified', 'Home', 'CCU-04', 'A');
INSERT INTO admissions VALUES (5, 16, 6, 6, '2025-05-24 22:14', '2025-05-28 00:14', 'Elective', 'J18.9', 'Pneumonia, unspecified organism', 'Expired', '3M-19', 'A');
INSERT INTO admissions VALUES (6, 37, 1, 9, '2025-09-09 05:58', '2025-09-11 10:58', 'Emergency', 'K35.80', 'Acute appendicitis', 'Left against medical advice', 'ED-05', 'B');
INSERT INTO admissions VALUES (7, 7, 9, 14, '2025-11-26 13:04', '2025-12-01 21:04', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Home with home health', 'ICU-09', 'A');
INSERT INTO admissions VALUES (8, 57, 4, 20, '2025-11-11 09:52', '2025-11-16 14:52', 'Emergency', 'C50.911', 'Malignant neoplasm of right female breast', 'Home', '5E-09', 'A');
INSERT INTO admissions VALUES (9, 54, 9, 14, '2025-01-27 07:23', '2025-01-30 10:23', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Rehabilitation facility', 'ICU-19', 'B');
INSERT INTO admissions VALUES (10, 15, 6, 6, '2025-03-12 22:57', '2025-03-15 03:57', 'Urgent', 'J18.9', 'Pneumonia, unspecified organism', 'Left against medical advice', '3M-17', 'B');
INSERT INTO admissions VALUES (11, 30, 1, 17, '2025-06-30 03:43', '2025-07-01 09:43', 'Emergency', 'K35.80', 'Acute appendicitis', 'Home', 'ED-09', 'B');
INSERT INTO admissions VALUES (12, 28, 1, 1, '2025-06-06 16:58', '2025-06-09 21:58', 'Emergency', 'K35.80', 'Acute appendicitis', 'Home with home health', 'ED-13', 'A');
INSERT INTO admissions VALUES (13, 49, 9, 6, '2025-06-07 18:53', '2025-06-13 23:53', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Rehabilitation facility', 'ICU-11', 'A');
INSERT INTO admissions VALUES (14, 6, 10, 8, '2025-01-11 15:15', '2025-01-12 21:15', 'Emergency', 'I63.9', 'Cerebral infarction, unspecified', 'Home', '4N-09', 'A');
INSERT INTO admissions VALUES (15, 33, 1, 17, '2025-01-25 06:12', '2025-01-26 09:12', 'Emergency', 'K35.80', 'Acute appendicitis', 'Left against medical advice', 'ED-12', 'B');
INSERT INTO admissions VALUES (16, 32, 2, 2, '2025-05-08 18:24', '2025-05-14 00:24', 'Elective', 'I21.4', 'Non-ST elevation myocardial infarction', 'Home with home health', 'CCU-19', 'B');
INSERT INTO admissions VALUES (17, 7, 4, 20, '2025-09-03 13:38', '2025-09-11 18:38', 'Emergency', 'C34.90', 'Malignant neoplasm of lung', 'Left against medical advice', '5E-01', 'A');
INSERT INTO admissions VALUES (18, 34, 7, 7, '2025-05-18 22:21', '2025-05-27 03:21', 'Urgent', 'O80', 'Encounter for full-term uncomplicated delivery', 'Home', 'L&D-07', 'B');
INSERT INTO admissions VALUES (19, 42, 4, 4, '2025-06-28 06:44', '2025-06-29 14:44', 'Elective', 'C34.90', 'Malignant neoplasm of lung', 'Skilled nursing facility', '5E-14', 'A');
INSERT INTO admissions VALUES (20, 16, 2, 10, '2025-09-25 11:07', '2025-09-26 16:07', 'Urgent', 'I21.4', 'Non-ST elevation myocardial infarction', 'Expired', 'CCU-07', 'B');
INSERT INTO admissions VALUES (21, 64, 4, 20, '2025-05-03 01:57', '2025-05-09 09:57', 'Emergency', 'C50.911', 'Malignant neoplasm of right female breast', 'Home', '5E-10', 'B');
INSERT INTO admissions VALUES (22, 62, 6, 6, '2025-02-20 08:12', '2025-02-22 11:12', 'Emergency', 'J18.9', 'Pneumonia, unspecified organism', 'Rehabilitation facility', '3M-10', 'B');
INSERT INTO admissions VALUES (23, 31, 4, 20, '2025-09-13 21:06', '2025-09-18 22:06', 'Urgent', 'C50.911', 'Malignant neoplasm of right female breast', 'Rehabilitation facility', '5E-02', 'B');
INSERT INTO admissions VALUES (24, 9, 10, 8, '2025-03-03 09:25', '2025-03-06 09:25', 'Urgent', 'G40.909', 'Epilepsy, unspecified', 'Home', '4N-20', 'A');
INSERT INTO admissions VALUES (25, 3, 2, 2, '2025-03-03 02:25', '2025-03-11 07:25', 'Emergency', 'I50.9', 'Heart failure, unspecified', 'Home', 'CCU-04', 'B');
INSERT INTO admissions VALUES (26, 54, 5, 13, '2025-07-17 16:23', '2025-07-18 21:23', 'Emergency', 'J45.901', 'Asthma with acute exacerbation', 'Home', 'PEDS-19', 'B');
INSERT INTO admissions VALUES (27, 17, 6, 14, '2025-01-05 04:25', '2025-01-06 06:25', 'Elective', 'J18.9', 'Pneumonia, unspecified organism', 'Skilled nursing facility', '3M-17', 'A');
INSERT INTO admissions VALUES (28, 12, 3, 19, '2025-03-11 06:28', '2025-03-17 09:28', 'Emergency', 'S72.001A', 'Fracture of right femoral neck', 'Expired', '4W-16', 'B');
INSERT INTO admissions VALUES (29, 46, 2, 10, '2025-01-25 11:53', '2025-01-30 19:53', 'Emergency', 'I21.4', 'Non-ST elevation myocardial infarction', 'Skilled nursing facility', 'CCU-07', 'A');
INSERT INTO admissions VALUES (30, 13, 5, 13, '2025-07-18 20:27', '2025-07-21 01:27', 'Elective', 'J45.901', 'Asthma with acute exacerbation', 'Home', 'PEDS-13', 'A');
INSERT INTO admissions VALUES (31, 42, 1, 1, '2025-07-27 08:13', '2025-08-04 13:13', 'Emergency', 'K35.80', 'Acute appendicitis', 'Skilled nursing facility', 'ED-12', 'A');
INSERT INTO admissions VALUES (32, 25, 6, 6, '2025-02-13 00:52', '2025-02-17 01:52', 'Emergency', 'J18.9', 'Pneumonia, unspecified organism', 'Home', '3M-09', 'B');
INSERT INTO admissions VALUES (33, 14, 2, 2, '2025-05-07 05:05', '2025-05-19 09:05', 'Elective', 'I21.4', 'Non-ST elevation myocardial infarction', 'Home', 'CCU-02', 'A');
INSERT INTO admissions VALUES (34, 18, 6, 14, '2025-03-29 15:51', '2025-04-10 19:51', 'Emergency', 'N39.0', 'Urinary tract infection', 'Home', '3M-07', 'B');
INSERT INTO admissions VALUES (35, 66, 3, 3, '2025-08-27 17:21', '2025-09-01 20:21', 'Emergency', 'M17.11', 'Primary osteoarthritis, right knee', 'Expired', '4W-14', 'B');
INSERT INTO admissions VALUES (36, 29, 8, 5, '2025-01-27 01:48', '2025-02-02 01:48', 'Emergency', 'P07.30', 'Preterm newborn', 'Home', 'NICU-20', 'A');
INSERT INTO admissions VALUES (37, 62, 7, 7, '2025-06-08 01:07', '2025-06-20 05:07', 'Urgent', 'O80', 'Encounter for full-term uncomplicated delivery', 'Home', 'L&D-17', 'B');
INSERT INTO admissions VALUES (38, 32, 2, 18, '2025-07-14 15:18', '2025-07-17 17:18', 'Emergency', 'I21.4', 'Non-ST elevation myocardial infarction', 'Left against medical advice', 'CCU-12', 'B');
INSERT INTO admissions VALUES (39, 17, 3, 3, '2025-10-02 03:03', '2025-10-04 10:03', 'Elective', 'S72.001A', 'Fracture of right femoral neck', 'Home', '4W-18', 'A');
INSERT INTO admissions VALUES (40, 63, 3, 19, '2025-11-08 23:42', '2025-11-12 02:42', 'Urgent', 'M17.11', 'Primary osteoarthritis, right knee', 'Home', '4W-20', 'B');
INSERT INTO admissions VALUES (41, 9, 4, 4, '2025-05-07 12:14', '2025-05-15 12:14', 'Elective', 'C34.90', 'Malignant neoplasm of lung', 'Home', '5E-18', 'A');
INSERT INTO admissions VALUES (42, 7, 5, 5, '2025-06-05 13:49', '2025-06-07 13:49', 'Emergency', 'J45.901', 'Asthma with acute exacerbation', 'Home', 'PEDS-06', 'A');
INSERT INTO admissions VALUES (43, 50, 5, 5, '2025-04-27 20:49', '2025-05-05 23:49', 'Urgent', 'J45.901', 'Asthma with acute exacerbation', 'Home', 'PEDS-09', 'B');
INSERT INTO admissions VALUES (44, 27, 1, 9, '2025-11-21 12:28', '2025-11-22 17:28', 'Emergency', 'K35.80', 'Acute appendicitis', 'Home', 'ED-15', 'A');
INSERT INTO admissions VALUES (45, 51, 2, 2, '2025-09-19 13:19', '2025-09-21 18:19', 'Urgent', 'I21.4', 'Non-ST elevation myocardial infarction', 'Skilled nursing facility', 'CCU-12', 'B');
INSERT INTO admissions VALUES (46, 65, 6, 6, '2025-08-24 23:52', '2025-08-28 00:52', 'Emergency', 'N39.0', 'Urinary tract infection', 'Home', '3M-10', 'B');
INSERT INTO admissions VALUES (47, 51, 2, 18, '2025-06-19 10:50', '2025-06-24 11:50', 'Urgent', 'I21.4', 'Non-ST elevation myocardial infarction', 'Home', 'CCU-18', 'B');
INSERT INTO admissions VALUES (48, 51, 3, 19, '2025-11-01 13:40', '2025-11-05 14:40', 'Elective', 'M17.11', 'Primary osteoarthritis, right knee', 'Left against medical advice', '4W-15', 'B');
INSERT INTO admissions VALUES (49, 39, 6, 6, '2025-05-12 08:09', '2025-05-15 08:09', 'Emergency', 'J18.9', 'Pneumonia, unspecified organism', 'Home', '3M-08', 'B');
INSERT INTO admissions VALUES (50, 20, 8, 13, '2025-04-24 14:55', '2025-04-28 20:55', 'Emergency', 'P07.30', 'Preterm newborn', 'Home', 'NICU-09', 'B');
INSERT INTO admissions VALUES (51, 12, 6, 14, '2025-11-11 03:55', '2025-11-12 09:55', 'Elective', 'E11.65', 'Type 2 diabetes mellitus with hyperglycemia', 'Expired', '3M-14', 'A');
INSERT INTO admissions VALUES (52, 34, 3, 19, '2025-11-21 00:36', '2025-11-22 06:36', 'Emergency', 'S72.001A', 'Fracture of right femoral neck', 'Home with home health', '4W-04', 'B');
INSERT INTO admissions VALUES (53, 70, 2, 10, '2025-09-16 17:41', '2025-09-22 20:41', 'Elective', 'I50.9', 'Heart failure, unspecified', 'Left against medical advice', 'CCU-06', 'A');
INSERT INTO admissions VALUES (54, 18, 5, 5, '2025-10-26 18:53', '2025-11-02 01:53', 'Urgent', 'J45.901', 'Asthma with acute exacerbation', 'Home', 'PEDS-20', 'B');
INSERT INTO admissions VALUES (55, 61, 2, 10, '2025-06-30 15:37', '2025-07-12 22:37', 'Urgent', 'I50.9', 'Heart failure, unspecified', 'Rehabilitation facility', 'CCU-08', 'A');
INSERT INTO admissions VALUES (56, 52, 4, 12, '2025-08-25 07:22', '2025-08-27 15:22', 'Emergency', 'C50.911', 'Malignant neoplasm of right female breast', 'Rehabilitation facility', '5E-13', 'A');
INSERT INTO admissions VALUES (57, 69, 4, 4, '2025-05-03 05:13', '2025-05-07 11:13', 'Urgent', 'C34.90', 'Malignant neoplasm of lung', 'Home', '5E-07', 'A');
INSERT INTO admissions VALUES (58, 20, 1, 9, '2025-08-12 15:54', '2025-08-17 18:54', 'Emergency', 'K35.80', 'Acute appendicitis', 'Rehabilitation facility', 'ED-06', 'B');
INSERT INTO admissions VALUES (59, 37, 6, 6, '2025-01-07 16:51', '2025-01-12 17:51', 'Elective', 'J18.9', 'Pneumonia, unspecified organism', 'Skilled nursing facility', '3M-19', 'A');
INSERT INTO admissions VALUES (60, 56, 1, 1, '2025-02-24 16:06', '2025-02-28 23:06', 'Emergency', 'K35.80', 'Acute appendicitis', 'Home', 'ED-01', 'B');
INSERT INTO admissions VALUES (61, 58, 2, 10, '2025-10-23 01:33', '2025-10-29 04:33', 'Urgent', 'I50.9', 'Heart failure, unspecified', 'Expired', 'CCU-19', 'B');
INSERT INTO admissions VALUES (62, 31, 2, 2, '2025-07-09 19:16', '2025-07-13 03:16', 'Emergency', 'I50.9', 'Heart failure, unspecified', 'Rehabilitation facility', 'CCU-04', 'B');
INSERT INTO admissions VALUES (63, 52, 9, 6, '2025-05-08 07:53', '2025-05-20 12:53', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Home with home health', 'ICU-01', 'A');
INSERT INTO admissions VALUES (64, 32, 7, 15, '2025-03-31 11:23', '2025-04-04 11:23', 'Urgent', 'O80', 'Encounter for full-term uncomplicated delivery', 'Home', 'L&D-11', 'A');
INSERT INTO admissions VALUES (65, 27, 2, 2, '2025-06-29 23:52', '2025-07-03 02:52', 'Urgent', 'I21.4', 'Non-ST elevation myocardial infarction', 'Home', 'CCU-10', 'A');
INSERT INTO admissions VALUES (66, 17, 4, 4, '2025-02-10 18:12', '2025-02-18 22:12', 'Emergency', 'C34.90', 'Malignant neoplasm of lung', 'Rehabilitation facility', '5E-07', 'B');
INSERT INTO admissions VALUES (67, 63, 3, 19, '2025-09-08 23:01', '2025-09-10 04:01', 'Elective', 'M17.11', 'Primary osteoarthritis, right knee', 'Rehabilitation facility', '4W-13', 'A');
INSERT INTO admissions VALUES (68, 68, 9, 6, '2025-02-24 13:19', '2025-02-27 14:19', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Rehabilitation facility', 'ICU-15', 'A');
INSERT INTO admissions VALUES (69, 57, 1, 1, '2025-07-01 23:15', '2025-07-04 23:15', 'Emergency', 'K35.80', 'Acute appendicitis', 'Skilled nursing facility', 'ED-09', 'A');
INSERT INTO admissions VALUES (70, 13, 3, 3, '2025-09-11 08:08', '2025-09-16 14:08', 'Emergency', 'M17.11', 'Primary osteoarthritis, right knee', 'Home', '4W-06', 'B');
INSERT INTO admissions VALUES (71, 22, 8, 13, '2025-02-19 02:12', '2025-02-27 09:12', 'Urgent', 'P07.30', 'Preterm newborn', 'Home', 'NICU-01', 'B');
INSERT INTO admissions VALUES (72, 43, 3, 19, '2025-11-02 11:32', '2025-11-10 14:32', 'Emergency', 'S72.001A', 'Fracture of right femoral neck', 'Skilled nursing facility', '4W-13', 'B');
INSERT INTO admissions VALUES (73, 23, 8, 5, '2025-05-22 13:28', '2025-05-23 16:28', 'Elective', 'P07.30', 'Preterm newborn', 'Home with home health', 'NICU-13', 'A');
INSERT INTO admissions VALUES (74, 21, 10, 8, '2025-08-02 05:23', '2025-08-03 10:23', 'Emergency', 'G40.909', 'Epilepsy, unspecified', 'Rehabilitation facility', '4N-04', 'B');
INSERT INTO admissions VALUES (75, 67, 2, 2, '2025-07-08 11:49', '2025-07-12 19:49', 'Emergency', 'I50.9', 'Heart failure, unspecified', 'Expired', 'CCU-17', 'B');
INSERT INTO admissions VALUES (76, 10, 2, 10, '2025-08-26 13:57', '2025-09-07 21:57', 'Elective', 'I21.4', 'Non-ST elevation myocardial infarction', 'Skilled nursing facility', 'CCU-04', 'B');
INSERT INTO admissions VALUES (77, 60, 6, 6, '2025-02-21 08:16', '2025-03-01 09:16', 'Elective', 'E11.65', 'Type 2 diabetes mellitus with hyperglycemia', 'Expired', '3M-18', 'B');
INSERT INTO admissions VALUES (78, 18, 10, 8, '2025-04-23 09:13', '2025-04-29 13:13', 'Emergency', 'G40.909', 'Epilepsy, unspecified', 'Rehabilitation facility', '4N-13', 'A');
INSERT INTO admissions VALUES (79, 67, 9, 14, '2025-02-24 14:38', '2025-02-25 18:38', 'Emergency', 'A41.9', 'Sepsis, unspecified organism', 'Home', 'ICU-09', 'B');
INSERT INTO admissions VALUES (80, 60, 4, 20, '2025-10-07 10:52', '2025-10-10 12:52', 'Emergency', 'C34.90', 'Malignant neoplasm of lung', 'Home', '5E-04', 'A');
INSERT INTO admissions VALUES (81, 63, 6, 14, '2025-04-29 07:45', '2025-05-01 13:45', 'Emergency', 'E11.65', 'Type 2 diabetes mellitus with hyperglycemia', 'Home with home health', '3M-10', 'A');
INSERT INTO admissions VALUES (82, 28, 6, 14, '2025-07-04 16:24', '2025-07-05 17:24', 'Emergency', 'N39.0', 'Urinary tract infection', 'Expired', '3M-11', 'B');
INSERT INTO admissions VALUES (83, 18, 1, 9, '2025-05-21 20:03', '2025-05-24 22:03', 'Emergency', 'K35.80', 'Acute appendicitis', 'Rehabilitation facility', 'ED-05', 'B');
INSERT INTO admissions VALUES (84, 5, 3, 3, '2025-02-13 22:49', '2025-02-26 05:49', 'Elective', 'M17.11', 'Primary osteoarthritis, right knee', 'Home', '4W-15', 'A');
INSERT INTO admissions VALUES (85, 16, 3, 11, '2025-07-17 04:18', NULL, 'Emergency', 'M17.11', 'Primary osteoarthritis, right knee', NULL, '4W-14', 'B');
INSERT INTO admissions VALUES (86, 44, 5, 13, '2025-05-06 15:25', NULL, 'Emergency', 'J45.901', 'Asthma with acute exacerbation', NULL, 'PEDS-19', 'A');
INSERT INTO admissions VALUES (87, 5, 1, 9, '2025-11-18 15:55', NULL, 'Emergency', 'K35.80', 'Acute appendicitis', NULL, 'ED-20', 'A');
INSERT INTO admissions VALUES (88, 28, 4, 12, '2025-07-05 03:01', NULL, 'Urgent', 'C34.90', 'Malignant neoplasm of lung', NULL, '5E-05', 'B');
INSERT INTO admissions VALUES (89, 67, 10, 8, '2025-02-11 01:45', NULL, 'Elective', 'I63.9', 'Cerebral infarction, unspecified', NULL, '4N-02', 'B');
INSERT INTO admissions VALUES (90, 34, 5, 5, '2025-05-30 09:06', NULL, 'Elective', 'J45.901', 'Asthma with acute exacerbation', NULL, 'PEDS-08', 'A');

INSERT INTO medications VALUES (1, 'metoprolol tartrate', 'Lopressor', 'beta blocker', '25 mg', 'tablet', 0.12);
INSERT INTO medications VALUES (2, 'lisinopril', 'Zestril', 'ACE inhibitor', '10 mg', 'tablet', 0.09);
INSERT INTO medications VALUES (3, 'atorvastatin', 'Lipitor', 'statin', '40 mg', 'tablet', 0.18);
INSERT INTO medications VALUES (4, 'heparin', NULL, 'anticoagulant', '5000 units/mL', 'injection', 2.4);
INSERT INTO medications VALUES (5, 'warfarin', 'Coumadin', 'anticoagulant', '5 mg', 'tablet', 0.22);
INSERT INTO medications VALUES (6, 'apixaban', 'Eliquis', 'anticoagulant', '5 mg', 'tablet', 8.75);
INSERT INTO medications VALUES (7, 'furosemide', 'Lasix', 'loop diuretic', '40 mg', 'tablet', 0.08);
INSERT INTO medications VALUES (8, 'metformin', 'Glucophage', 'biguanide', '500 mg', 'tablet', 0.06);
INSERT INTO medications VALUES (9, 'insulin glargine', 'Lantus', 'long-acting insulin', '100 units/mL', 'injection', 31.5);
INSERT INTO medications VALUES (10, 'oxycodone', 'Roxicodone', 'opioid analgesic', '5 mg', 'tablet', 0.65);
INSERT INTO medications VALUES (11, 'morphine sulfate', NULL, 'opioid analgesic', '2 mg/mL', 'injection', 1.95);
INSERT INTO medications VALUES (12, 'acetaminophen', 'Tylenol', 'analgesic', '500 mg', 'tablet', 0.03);
INSERT INTO medications VALUES (13, 'ibuprofen', 'Motrin', 'NSAID', '400 mg', 'tablet', 0.05);
INSERT INTO medications VALUES (14, 'ceftriaxone', 'Rocephin', 'cephalosporin antibiotic', '1 g', 'injection', 4.1);
INSERT INTO medications VALUES (15, 'vancomycin', 'Vancocin', 'glycopeptide antibiotic', '1 g', 'injection', 9.8);
INSERT INTO medications VALUES (16, 'amoxicillin', 'Amoxil', 'penicillin antibiotic', '500 mg', 'capsule', 0.15);
INSERT INTO medications VALUES (17, 'albuterol', 'ProAir HFA', 'bronchodilator', '90 mcg/actuation', 'inhaler', 38.0);
INSERT INTO medications VALUES (18, 'prednisone', 'Deltasone', 'corticosteroid', '20 mg', 'tablet', 0.07);
INSERT INTO medications VALUES (19, 'ondansetron', 'Zofran', 'antiemetic', '4 mg', 'tablet', 0.3);
INSERT INTO medications VALUES (20, 'levetiracetam', 'Keppra', 'anticonvulsant', '500 mg', 'tablet', 0.4);
INSERT INTO medications VALUES (21, 'pantoprazole', 'Protonix', 'proton pump inhibitor', '40 mg', 'tablet', 0.2);
INSERT INTO medications VALUES (22, 'enoxaparin', 'Lovenox', 'anticoagulant', '40 mg/0.4 mL', 'injection', 12.6);
INSERT INTO medications VALUES (23, 'tamoxifen', 'Soltamox', 'antiestrogen', '20 mg', 'tablet', 0.55);
INSERT INTO medications VALUES (24, 'cisplatin', NULL, 'chemotherapy', '1 mg/mL', 'injection', 22.0);
INSERT INTO medications VALUES (25, 'sertraline', 'Zoloft', 'SSRI antidepressant', '50 mg', 'tablet', 0.1);
INSERT INTO medications VALUES (26, 'oxytocin', 'Pitocin', 'uterotonic', '10 units/mL', 'injection', 3.2);

INSERT INTO prescriptions VALUES (1, 36, 5, 16, 1, '1 capsule', 'daily', 'PO', '2025-02-24', '2025-03-01', 0, 0);
INSERT INTO prescriptions VALUES (2, 6, 14, 15, 2, '0.5 dose', 'q12h', 'IV', '2025-08-15', '2025-08-17', 0, 0);
INSERT INTO prescriptions VALUES (3, 6, 14, 14, 2, '1 dose', 'at bedtime', 'IV', '2025-08-15', '2025-08-17', 0, 0);
INSERT INTO prescriptions VALUES (4, 34, 18, 4, 3, '0.5 dose', 'BID', 'IV', '2025-03-06', '2025-03-13', 0, 0);
INSERT INTO prescriptions VALUES (5, 31, 18, 7, 4, '1 tablet', 'q8h', 'PO', '2025-05-24', '2025-05-27', 0, 0);
INSERT INTO prescriptions VALUES (6, 16, 6, 16, 5, '1 capsule', 'daily', 'PO', '2025-05-24', '2025-05-28', 0, 0);
INSERT INTO prescriptions VALUES (7, 16, 6, 12, 5, '1 tablet', 'q4h PRN', 'PO', '2025-05-24', '2025-05-28', 0, 1);
INSERT INTO prescriptions VALUES (8, 37, 9, 10, 6, '0.5 tablet', 'q6h PRN', 'PO', '2025-09-09', '2025-09-11', 0, 1);
INSERT INTO prescriptions VALUES (9, 37, 9, 14, 6, '1 dose', 'q12h', 'IV', '2025-09-09', '2025-09-11', 0, 0);
INSERT INTO prescriptions VALUES (10, 7, 14, 14, 7, '1 dose', 'q8h', 'IV', '2025-11-26', '2025-12-01', 0, 0);
INSERT INTO prescriptions VALUES (11, 7, 14, 15, 7, '1 dose', 'at bedtime', 'SC', '2025-11-26', '2025-12-01', 0, 0);
INSERT INTO prescriptions VALUES (12, 57, 20, 23, 8, '1 tablet', 'TID', 'PO', '2025-11-11', '2025-11-16', 0, 0);
INSERT INTO prescriptions VALUES (13, 57, 20, 19, 8, '0.5 tablet', 'TID', 'PO', '2025-11-11', '2025-11-16', 0, 0);
INSERT INTO prescriptions VALUES (14, 57, 20, 12, 8, '2 tablets', 'q8h', 'PO', '2025-11-11', '2025-11-16', 0, 0);
INSERT INTO prescriptions VALUES (15, 54, 14, 14, 9, '1 dose', 'daily', 'IV', '2025-01-27', '2025-01-30', 0, 0);
INSERT INTO prescriptions VALUES (16, 54, 14, 11, 9, '0.5 dose', 'q6h PRN', 'IV', '2025-01-27', '2025-01-30', 0, 1);
INSERT INTO prescriptions VALUES (17, 54, 14, 15, 9, '0.5 dose', 'BID', 'SC', '2025-01-27', '2025-01-30', 0, 0);
INSERT INTO prescriptions VALUES (18, 15, 6, 14, 10, '1 dose', 'q12h', 'SC', '2025-03-12', '2025-03-15', 0, 0);
INSERT INTO prescriptions VALUES (19, 30, 17, 10, 11, '1 tablet', 'q4h PRN', 'PO', '2025-06-30', '2025-07-01', 0, 1);
INSERT INTO prescriptions VALUES (20, 30, 17, 12, 11, '2 tablets', 'at bedtime', 'PO', '2025-06-30', '2025-07-01', 0, 0);
INSERT INTO prescriptions VALUES (21, 30, 17, 14, 11, '0.5 dose', 'at bedtime', 'SC', '2025-06-30', '2025-07-01', 0, 0);
INSERT INTO prescriptions VALUES (22, 28, 1, 12, 12, '1 tablet', 'q6h PRN', 'PO', '2025-06-06', '2025-06-09', 0, 1);
INSERT INTO prescriptions VALUES (23, 49, 6, 15, 13, '0.5 dose', 'q8h', 'IV', '2025-06-07', '2025-06-13', 0, 0);
INSERT INTO prescriptions VALUES (24, 6, 8, 4, 14, '1 dose', 'q12h', 'IV', '2025-01-11', '2025-01-12', 0, 0);
INSERT INTO prescriptions VALUES (25, 33, 17, 12, 15, '0.5 tablet', 'q6h PRN', 'PO', '2025-01-25', '2025-01-26', 0, 1);
INSERT INTO prescriptions VALUES (26, 32, 2, 6, 16, '0.5 tablet', 'q8h', 'PO', '2025-05-08', '2025-05-14', 0, 0);
INSERT INTO prescriptions VALUES (27, 32, 2, 3, 16, '2 tablets', 'at bedtime', 'PO', '2025-05-08', '2025-05-14', 0, 0);
INSERT INTO prescriptions VALUES (28, 32, 2, 4, 16, '1 dose', 'q12h', 'IV', '2025-05-08', '2025-05-14', 0, 0);
INSERT INTO prescriptions VALUES (29, 7, 20, 19, 17, '0.5 tablet', 'q6h PRN', 'PO', '2025-09-03', '2025-09-11', 0, 1);
INSERT INTO prescriptions VALUES (30, 34, 7, 13, 18, '2 tablets', 'BID', 'PO', '2025-05-18', '2025-05-27', 0, 0);
INSERT INTO prescriptions VALUES (31, 42, 4, 11, 19, '1 dose', 'q6h PRN', 'IV', '2025-06-28', '2025-06-29', 0, 1);
INSERT INTO prescriptions VALUES (32, 16, 10, 4, 20, '0.5 dose', 'BID', 'IV', '2025-09-25', '2025-09-26', 0, 0);
INSERT INTO prescriptions VALUES (33, 16, 10, 6, 20, '0.5 tablet', 'TID', 'PO', '2025-09-25', '2025-09-26', 0, 0);
INSERT INTO prescriptions VALUES (34, 16, 10, 2, 20, '2 tablets', 'TID', 'PO', '2025-09-25', '2025-09-26', 0, 0);
INSERT INTO prescriptions VALUES (35, 64, 20, 19, 21, '2 tablets', 'q4h PRN', 'PO', '2025-05-03', '2025-05-09', 0, 1);
INSERT INTO prescriptions VALUES (36, 62, 6, 12, 22, '2 tablets', 'q6h PRN', 'PO', '2025-02-20', '2025-02-22', 0, 1);
INSERT INTO prescriptions VALUES (37, 31, 20, 19, 23, '0.5 tablet', 'BID', 'PO', '2025-09-13', '2025-09-18', 0, 0);
INSERT INTO prescriptions VALUES (38, 31, 20, 12, 23, '1 tablet', 'q4h PRN', 'PO', '2025-09-13', '2025-09-18', 0, 1);
INSERT INTO prescriptions VALUES (39, 9, 8, 20, 24, '1 tablet', 'at bedtime', 'PO', '2025-03-03', '2025-03-06', 0, 0);
INSERT INTO prescriptions VALUES (40, 3, 2, 1, 25, '1 tablet', 'TID', 'PO', '2025-03-03', '2025-03-11', 0, 0);
INSERT INTO prescriptions VALUES (41, 54, 13, 18, 26, '1 tablet', 'at bedtime', 'PO', '2025-07-17', '2025-07-18', 0, 0);
INSERT INTO prescriptions VALUES (42, 54, 13, 17, 26, '2 puffs', 'q4h PRN', 'INH', '2025-07-17', '2025-07-18', 0, 1);
INSERT INTO prescriptions VALUES (43, 17, 14, 14, 27, '1 dose', 'TID', 'SC', '2025-01-05', '2025-01-06', 0, 0);
INSERT INTO prescriptions VALUES (44, 12, 19, 10, 28, '2 tablets', 'q6h PRN', 'PO', '2025-03-11', '2025-03-17', 0, 1);
INSERT INTO prescriptions VALUES (45, 12, 19, 22, 28, '0.5 dose', 'at bedtime', 'IV', '2025-03-11', '2025-03-17', 0, 0);
INSERT INTO prescriptions VALUES (46, 12, 19, 12, 28, '2 tablets', 'q8h', 'PO', '2025-03-11', '2025-03-17', 0, 0);
INSERT INTO prescriptions VALUES (47, 46, 10, 6, 29, '2 tablets', 'BID', 'PO', '2025-01-25', '2025-01-30', 0, 0);
INSERT INTO prescriptions VALUES (48, 46, 10, 4, 29, '0.5 dose', 'daily', 'IV', '2025-01-25', '2025-01-30', 0, 0);
INSERT INTO prescriptions VALUES (49, 13, 13, 17, 30, '2 puffs', 'q4h PRN', 'INH', '2025-07-18', '2025-07-21', 0, 1);
INSERT INTO prescriptions VALUES (50, 13, 13, 18, 30, '0.5 tablet', 'daily', 'PO', '2025-07-18', '2025-07-21', 0, 0);
INSERT INTO prescriptions VALUES (51, 42, 1, 14, 31, '0.5 dose', 'at bedtime', 'SC', '2025-07-27', '2025-08-04', 0, 0);
INSERT INTO prescriptions VALUES (52, 25, 6, 16, 32, '1 capsule', 'daily', 'PO', '2025-02-13', '2025-02-17', 0, 0);
INSERT INTO prescriptions VALUES (53, 25, 6, 14, 32, '0.5 dose', 'q8h', 'SC', '2025-02-13', '2025-02-17', 0, 0);
INSERT INTO prescriptions VALUES (54, 25, 6, 12, 32, '1 tablet', 'q4h PRN', 'PO', '2025-02-13', '2025-02-17', 0, 1);
INSERT INTO prescriptions VALUES (55, 14, 2, 2, 33, '2 tablets', 'q12h', 'PO', '2025-05-07', '2025-05-19', 0, 0);
INSERT INTO prescriptions VALUES (56, 18, 14, 16, 34, '1 capsule', 'q8h', 'PO', '2025-03-29', '2025-04-10', 0, 0);
INSERT INTO prescriptions VALUES (57, 18, 14, 14, 34, '1 dose', 'daily', 'SC', '2025-03-29', '2025-04-10', 0, 0);
INSERT INTO prescriptions VALUES (58, 66, 3, 10, 35, '0.5 tablet', 'q4h PRN', 'PO', '2025-08-27', '2025-09-01', 0, 1);
INSERT INTO prescriptions VALUES (59, 66, 3, 12, 35, '0.5 tablet', 'q12h', 'PO', '2025-08-27', '2025-09-01', 0, 0);
INSERT INTO prescriptions VALUES (60, 66, 3, 22, 35, '0.5 dose', 'q8h', 'IV', '2025-08-27', '2025-09-01', 0, 0);
INSERT INTO prescriptions VALUES (61, 29, 5, 16, 36, '1 capsule', 'at bedtime', 'PO', '2025-01-27', '2025-02-02', 0, 0);
INSERT INTO prescriptions VALUES (62, 62, 7, 12, 37, '1 tablet', 'q6h PRN', 'PO', '2025-06-08', '2025-06-20', 0, 1);
INSERT INTO prescriptions VALUES (63, 32, 18, 4, 38, '1 dose', 'q12h', 'IV', '2025-07-14', '2025-07-17', 0, 0);
INSERT INTO prescriptions VALUES (64, 17, 3, 12, 39, '0.5 tablet', 'q12h', 'PO', '2025-10-02', '2025-10-04', 0, 0);
INSERT INTO prescriptions VALUES (65, 63, 19, 10, 40, '2 tablets', 'q4h PRN', 'PO', '2025-11-08', '2025-11-12', 0, 1);
INSERT INTO prescriptions VALUES (66, 63, 19, 12, 40, '2 tablets', 'q6h PRN', 'PO', '2025-11-08', '2025-11-12', 0, 1);
INSERT INTO prescriptions VALUES (67, 9, 4, 24, 41, '0.5 dose', 'BID', 'IV', '2025-05-07', '2025-05-15', 0, 0);
INSERT INTO prescriptions VALUES (68, 9, 4, 19, 41, '1 tablet', 'q4h PRN', 'PO', '2025-05-07', '2025-05-15', 0, 1);
INSERT INTO prescriptions VALUES (69, 9, 4, 11, 41, '0.5 dose', 'q6h PRN', 'IV', '2025-05-07', '2025-05-15', 0, 1);
INSERT INTO prescriptions VALUES (70, 7, 5, 18, 42, '2 tablets', 'daily', 'PO', '2025-06-05', '2025-06-07', 0, 0);
INSERT INTO prescriptions VALUES (71, 50, 5, 18, 43, '2 tablets', 'q12h', 'PO', '2025-04-27', '2025-05-05', 0, 0);
INSERT INTO prescriptions VALUES (72, 27, 9, 10, 44, '1 tablet', 'q12h', 'PO', '2025-11-21', '2025-11-22', 0, 0);
INSERT INTO prescriptions VALUES (73, 51, 2, 3, 45, '0.5 tablet', 'q12h', 'PO', '2025-09-19', '2025-09-21', 0, 0);
INSERT INTO prescriptions VALUES (74, 65, 6, 14, 46, '0.5 dose', 'q12h', 'IV', '2025-08-24', '2025-08-28', 0, 0);
INSERT INTO prescriptions VALUES (75, 65, 6, 16, 46, '1 capsule', 'BID', 'PO', '2025-08-24', '2025-08-28', 0, 0);
INSERT INTO prescriptions VALUES (76, 51, 18, 2, 47, '1 tablet', 'q8h', 'PO', '2025-06-19', '2025-06-24', 0, 0);
INSERT INTO prescriptions VALUES (77, 51, 18, 6, 47, '2 tablets', 'q12h', 'PO', '2025-06-19', '2025-06-24', 0, 0);
INSERT INTO prescriptions VALUES (78, 51, 19, 12, 48, '1 tablet', 'q6h PRN', 'PO', '2025-11-01', '2025-11-05', 0, 1);
INSERT INTO prescriptions VALUES (79, 51, 19, 22, 48, '0.5 dose', 'daily', 'SC', '2025-11-01', '2025-11-05', 0, 0);
INSERT INTO prescriptions VALUES (80, 51, 19, 10, 48, '2 tablets', 'q8h', 'PO', '2025-11-01', '2025-11-05', 0, 0);
INSERT INTO prescriptions VALUES (81, 39, 6, 16, 49, '1 capsule', 'TID', 'PO', '2025-05-12', '2025-05-15', 0, 0);
INSERT INTO prescriptions VALUES (82, 39, 6, 12, 49, '1 tablet', 'at bedtime', 'PO', '2025-05-12', '2025-05-15', 0, 0);
INSERT INTO prescriptions VALUES (83, 39, 6, 14, 49, '1 dose', 'daily', 'IV', '2025-05-12', '2025-05-15', 0, 0);
INSERT INTO prescriptions VALUES (84, 20, 13, 16, 50, '1 capsule', 'q12h', 'PO', '2025-04-24', '2025-04-28', 0, 0);
INSERT INTO prescriptions VALUES (85, 12, 14, 9, 51, '0.5 dose', 'TID', 'SC', '2025-11-11', '2025-11-12', 0, 0);
INSERT INTO prescriptions VALUES (86, 34, 19, 12, 52, '1 tablet', 'q8h', 'PO', '2025-11-21', '2025-11-22', 0, 0);
INSERT INTO prescriptions VALUES (87, 70, 10, 2, 53, '1 tablet', 'daily', 'PO', '2025-09-16', '2025-09-22', 0, 0);
INSERT INTO prescriptions VALUES (88, 18, 5, 17, 54, '2 puffs', 'q4h PRN', 'INH', '2025-10-26', '2025-11-02', 0, 1);
INSERT INTO prescriptions VALUES (89, 18, 5, 18, 54, '1 tablet', 'TID', 'PO', '2025-10-26', '2025-11-02', 0, 0);
INSERT INTO prescriptions VALUES (90, 61, 10, 7, 55, '1 tablet', 'q12h', 'PO', '2025-06-30', '2025-07-12', 0, 0);
INSERT INTO prescriptions VALUES (91, 61, 10, 5, 55, '2 tablets', 'q8h', 'PO', '2025-06-30', '2025-07-12', 0, 0);
INSERT INTO prescriptions VALUES (92, 61, 10, 1, 55, '0.5 tablet', 'TID', 'PO', '2025-06-30', '2025-07-12', 0, 0);
INSERT INTO prescriptions VALUES (93, 52, 12, 23, 56, '2 tablets', 'q8h', 'PO', '2025-08-25', '2025-08-27', 0, 0);
INSERT INTO prescriptions VALUES (94, 52, 12, 12, 56, '1 tablet', 'daily', 'PO', '2025-08-25', '2025-08-27', 0, 0);
INSERT INTO prescriptions VALUES (95, 69, 4, 19, 57, '2 tablets', 'at bedtime', 'PO', '2025-05-03', '2025-05-07', 0, 0);
INSERT INTO prescriptions VALUES (96, 69, 4, 24, 57, '0.5 dose', 'q12h', 'IV', '2025-05-03', '2025-05-07', 0, 0);
INSERT INTO prescriptions VALUES (97, 69, 4, 11, 57, '1 dose', 'BID', 'IV', '2025-05-03', '2025-05-07', 0, 0);
INSERT INTO prescriptions VALUES (98, 20, 9, 10, 58, '2 tablets', 'q4h PRN', 'PO', '2025-08-12', '2025-08-17', 0, 1);
INSERT INTO prescriptions VALUES (99, 20, 9, 12, 58, '0.5 tablet', 'q4h PRN', 'PO', '2025-08-12', '2025-08-17', 0, 1);
INSERT INTO prescriptions VALUES (100, 37, 6, 16, 59, '1 capsule', 'daily', 'PO', '2025-01-07', '2025-01-12', 0, 0);
INSERT INTO prescriptions VALUES (101, 56, 1, 12, 60, '2 tablets', 'q4h PRN', 'PO', '2025-02-24', '2025-02-28', 0, 1);
INSERT INTO prescriptions VALUES (102, 58, 10, 1, 61, '2 tablets', 'BID', 'PO', '2025-10-23', '2025-10-29', 0, 0);
INSERT INTO prescriptions VALUES (103, 58, 10, 7, 61, '1 tablet', 'at bedtime', 'PO', '2025-10-23', '2025-10-29', 0, 0);
INSERT INTO prescriptions VALUES (104, 31, 2, 2, 62, '1 tablet', 'q12h', 'PO', '2025-07-09', '2025-07-13', 0, 0);
INSERT INTO prescriptions VALUES (105, 31, 2, 7, 62, '0.5 tablet', 'q12h', 'PO', '2025-07-09', '2025-07-13', 0, 0);
INSERT INTO prescriptions VALUES (106, 52, 6, 15, 63, '1 dose', 'q8h', 'IV', '2025-05-08', '2025-05-20', 0, 0);
INSERT INTO prescriptions VALUES (107, 52, 6, 11, 63, '1 dose', 'daily', 'IV', '2025-05-08', '2025-05-20', 0, 0);
INSERT INTO prescriptions VALUES (108, 52, 6, 14, 63, '1 dose', 'TID', 'IV', '2025-05-08', '2025-05-20', 0, 0);
INSERT INTO prescriptions VALUES (109, 32, 15, 12, 64, '0.5 tablet', 'q6h PRN', 'PO', '2025-03-31', '2025-04-04', 0, 1);
INSERT INTO prescriptions VALUES (110, 32, 15, 13, 64, '1 tablet', 'q4h PRN', 'PO', '2025-03-31', '2025-04-04', 0, 1);
INSERT INTO prescriptions VALUES (111, 32, 15, 26, 64, '0.5 dose', 'at bedtime', 'IV', '2025-03-31', '2025-04-04', 0, 0);
INSERT INTO prescriptions VALUES (112, 27, 2, 2, 65, '2 tablets', 'daily', 'PO', '2025-06-29', '2025-07-03', 0, 0);
INSERT INTO prescriptions VALUES (113, 27, 2, 6, 65, '0.5 tablet', 'q8h', 'PO', '2025-06-29', '2025-07-03', 0, 0);
INSERT INTO prescriptions VALUES (114, 17, 4, 19, 66, '2 tablets', 'q12h', 'PO', '2025-02-10', '2025-02-18', 0, 0);
INSERT INTO prescriptions VALUES (115, 17, 4, 24, 66, '0.5 dose', 'TID', 'SC', '2025-02-10', '2025-02-18', 0, 0);
INSERT INTO prescriptions VALUES (116, 17, 4, 11, 66, '1 dose', 'q4h PRN', 'SC', '2025-02-10', '2025-02-18', 0, 1);
INSERT INTO prescriptions VALUES (117, 63, 19, 12, 67, '1 tablet', 'TID', 'PO', '2025-09-08', '2025-09-10', 0, 0);
INSERT INTO prescriptions VALUES (118, 63, 19, 13, 67, '1 tablet', 'q6h PRN', 'PO', '2025-09-08', '2025-09-10', 0, 1);
INSERT INTO prescriptions VALUES (119, 68, 6, 15, 68, '0.5 dose', 'TID', 'IV', '2025-02-24', '2025-02-27', 0, 0);
INSERT INTO prescriptions VALUES (120, 68, 6, 11, 68, '0.5 dose', 'q4h PRN', 'IV', '2025-02-24', '2025-02-27', 0, 1);
INSERT INTO prescriptions VALUES (121, 68, 6, 14, 68, '1 dose', 'q8h', 'SC', '2025-02-24', '2025-02-27', 0, 0);
INSERT INTO prescriptions VALUES (122, 57, 1, 14, 69, '1 dose', 'TID', 'SC', '2025-07-01', '2025-07-04', 0, 0);
INSERT INTO prescriptions VALUES (123, 57, 1, 12, 69, '2 tablets', 'daily', 'PO', '2025-07-01', '2025-07-04', 0, 0);
INSERT INTO prescriptions VALUES (124, 13, 3, 10, 70, '0.5 tablet', 'q4h PRN', 'PO', '2025-09-11', '2025-09-16', 0, 1);
INSERT INTO prescriptions VALUES (125, 13, 3, 12, 70, '1 tablet', 'q4h PRN', 'PO', '2025-09-11', '2025-09-16', 0, 1);
INSERT INTO prescriptions VALUES (126, 22, 13, 16, 71, '1 capsule', 'q12h', 'PO', '2025-02-19', '2025-02-27', 0, 0);
INSERT INTO prescriptions VALUES (127, 43, 19, 22, 72, '1 dose', 'q12h', 'SC', '2025-11-02', '2025-11-10', 0, 0);
INSERT INTO prescriptions VALUES (128, 43, 19, 12, 72, '2 tablets', 'q6h PRN', 'PO', '2025-11-02', '2025-11-10', 0, 1);
INSERT INTO prescriptions VALUES (129, 43, 19, 10, 72, '2 tablets', 'q4h PRN', 'PO', '2025-11-02', '2025-11-10', 0, 1);
INSERT INTO prescriptions VALUES (130, 23, 5, 16, 73, '1 capsule', 'q12h', 'PO', '2025-05-22', '2025-05-23', 0, 0);
INSERT INTO prescriptions VALUES (131, 21, 8, 20, 74, '0.5 tablet', 'q12h', 'PO', '2025-08-02', '2025-08-03', 0, 0);
INSERT INTO prescriptions VALUES (132, 67, 2, 1, 75, '2 tablets', 'TID', 'PO', '2025-07-08', '2025-07-12', 0, 0);
INSERT INTO prescriptions VALUES (133, 10, 10, 2, 76, '2 tablets', 'at bedtime', 'PO', '2025-08-26', '2025-09-07', 0, 0);
INSERT INTO prescriptions VALUES (134, 60, 6, 9, 77, '1 dose', 'TID', 'SC', '2025-02-21', '2025-03-01', 0, 0);
INSERT INTO prescriptions VALUES (135, 60, 6, 8, 77, '1 tablet', 'BID', 'PO', '2025-02-21', '2025-03-01', 0, 0);
INSERT INTO prescriptions VALUES (136, 18, 8, 20, 78, '2 tablets', 'q12h', 'PO', '2025-04-23', '2025-04-29', 0, 0);
INSERT INTO prescriptions VALUES (137, 67, 14, 14, 79, '0.5 dose', 'BID', 'IV', '2025-02-24', '2025-02-25', 0, 0);
INSERT INTO prescriptions VALUES (138, 67, 14, 15, 79, '1 dose', 'at bedtime', 'SC', '2025-02-24', '2025-02-25', 0, 0);
INSERT INTO prescriptions VALUES (139, 60, 20, 11, 80, '1 dose', 'q4h PRN', 'SC', '2025-10-07', '2025-10-10', 0, 1);
INSERT INTO prescriptions VALUES (140, 60, 20, 19, 80, '0.5 tablet', 'at bedtime', 'PO', '2025-10-07', '2025-10-10', 0, 0);
INSERT INTO prescriptions VALUES (141, 60, 20, 24, 80, '1 dose', 'daily', 'SC', '2025-10-07', '2025-10-10', 0, 0);
INSERT INTO prescriptions VALUES (142, 63, 14, 8, 81, '2 tablets', 'BID', 'PO', '2025-04-29', '2025-05-01', 0, 0);
INSERT INTO prescriptions VALUES (143, 63, 14, 9, 81, '1 dose', 'daily', 'IV', '2025-04-29', '2025-05-01', 0, 0);
INSERT INTO prescriptions VALUES (144, 28, 14, 14, 82, '1 dose', 'at bedtime', 'SC', '2025-07-04', '2025-07-05', 0, 0);
INSERT INTO prescriptions VALUES (145, 28, 14, 16, 82, '1 capsule', 'TID', 'PO', '2025-07-04', '2025-07-05', 0, 0);
INSERT INTO prescriptions VALUES (146, 18, 9, 12, 83, '0.5 tablet', 'q4h PRN', 'PO', '2025-05-21', '2025-05-24', 0, 1);
INSERT INTO prescriptions VALUES (147, 18, 9, 10, 83, '2 tablets', 'q12h', 'PO', '2025-05-21', '2025-05-24', 0, 0);
INSERT INTO prescriptions VALUES (148, 5, 3, 10, 84, '2 tablets', 'daily', 'PO', '2025-02-13', '2025-02-26', 0, 0);
INSERT INTO prescriptions VALUES (149, 16, 11, 13, 85, '0.5 tablet', 'q4h PRN', 'PO', '2025-07-17', NULL, 0, 1);
INSERT INTO prescriptions VALUES (150, 16, 11, 22, 85, '0.5 dose', 'at bedtime', 'IV', '2025-07-17', NULL, 0, 0);
INSERT INTO prescriptions VALUES (151, 16, 11, 12, 85, '2 tablets', 'q6h PRN', 'PO', '2025-07-17', NULL, 0, 1);
INSERT INTO prescriptions VALUES (152, 44, 13, 18, 86, '1 tablet', 'q8h', 'PO', '2025-05-06', NULL, 0, 0);
INSERT INTO prescriptions VALUES (153, 5, 9, 14, 87, '0.5 dose', 'at bedtime', 'IV', '2025-11-18', NULL, 0, 0);
INSERT INTO prescriptions VALUES (154, 5, 9, 10, 87, '0.5 tablet', 'q4h PRN', 'PO', '2025-11-18', NULL, 0, 1);
INSERT INTO prescriptions VALUES (155, 28, 12, 24, 88, '0.5 dose', 'TID', 'IV', '2025-07-05', NULL, 0, 0);
INSERT INTO prescriptions VALUES (156, 28, 12, 19, 88, '0.5 tablet', 'q4h PRN', 'PO', '2025-07-05', NULL, 0, 1);
INSERT INTO prescriptions VALUES (157, 67, 8, 6, 89, '0.5 tablet', 'TID', 'PO', '2025-02-11', NULL, 0, 0);
INSERT INTO prescriptions VALUES (158, 67, 8, 3, 89, '1 tablet', 'TID', 'PO', '2025-02-11', NULL, 0, 0);
INSERT INTO prescriptions VALUES (159, 67, 8, 4, 89, '1 dose', 'BID', 'IV', '2025-02-11', NULL, 0, 0);
INSERT INTO prescriptions VALUES (160, 34, 5, 17, 90, '2 puffs', 'q6h PRN', 'INH', '2025-05-30', NULL, 0, 1);
INSERT INTO prescriptions VALUES (161, 34, 5, 18, 90, '0.5 tablet', 'q12h', 'PO', '2025-05-30', NULL, 0, 0);
INSERT INTO prescriptions VALUES (162, 42, 10, 18, NULL, '1 tablet', 'daily', 'PO', '2025-01-18', NULL, 2, 0);
INSERT INTO prescriptions VALUES (163, 59, 14, 7, NULL, '1 tablet', 'BID', 'PO', '2025-05-01', NULL, 2, 0);
INSERT INTO prescriptions VALUES (164, 53, 14, 25, NULL, '2 tablets', 'at bedtime', 'PO', '2025-09-05', NULL, 5, 0);
INSERT INTO prescriptions VALUES (165, 23, 18, 18, NULL, '1 tablet', 'BID', 'PO', '2025-02-22', NULL, 1, 0);
INSERT INTO prescriptions VALUES (166, 15, 10, 7, NULL, '0.5 tablet', 'BID', 'PO', '2025-05-28', NULL, 3, 0);
INSERT INTO prescriptions VALUES (167, 4, 2, 3, NULL, '2 tablets', 'daily', 'PO', '2025-07-22', NULL, 2, 0);
INSERT INTO prescriptions VALUES (168, 16, 2, 2, NULL, '2 tablets', 'at bedtime', 'PO', '2025-08-19', NULL, 3, 0);
INSERT INTO prescriptions VALUES (169, 3, 6, 25, NULL, '0.5 tablet', 'BID', 'PO', '2025-03-29', NULL, 5, 0);
INSERT INTO prescriptions VALUES (170, 12, 14, 21, NULL, '0.5 tablet', 'daily', 'PO', '2025-08-18', NULL, 0, 0);
INSERT INTO prescriptions VALUES (171, 68, 18, 7, NULL, '1 tablet', 'daily', 'PO', '2025-04-09', NULL, 1, 0);
INSERT INTO prescriptions VALUES (172, 63, 14, 8, NULL, '0.5 tablet', 'at bedtime', 'PO', '2025-05-13', NULL, 2, 0);
INSERT INTO prescriptions VALUES (173, 37, 6, 7, NULL, '2 tablets', 'at bedtime', 'PO', '2025-09-12', NULL, 11, 0);
INSERT INTO prescriptions VALUES (174, 36, 6, 5, NULL, '0.5 tablet', 'daily', 'PO', '2025-01-18', NULL, 0, 0);
INSERT INTO prescriptions VALUES (175, 6, 6, 18, NULL, '1 tablet', 'daily', 'PO', '2025-02-04', NULL, 1, 0);
INSERT INTO prescriptions VALUES (176, 11, 18, 1, NULL, '0.5 tablet', 'BID', 'PO', '2025-07-19', NULL, 5, 0);
INSERT INTO prescriptions VALUES (177, 40, 6, 7, NULL, '0.5 tablet', 'at bedtime', 'PO', '2025-05-28', NULL, 3, 0);
INSERT INTO prescriptions VALUES (178, 19, 10, 2, NULL, '2 tablets', 'BID', 'PO', '2025-09-23', NULL, 0, 0);
INSERT INTO prescriptions VALUES (179, 23, 18, 2, NULL, '1 tablet', 'daily', 'PO', '2025-06-20', NULL, 1, 0);
INSERT INTO prescriptions VALUES (180, 39, 18, 5, NULL, '1 tablet', 'daily', 'PO', '2025-03-30', NULL, 2, 0);
INSERT INTO prescriptions VALUES (181, 65, 18, 2, NULL, '2 tablets', 'BID', 'PO', '2025-03-12', NULL, 1, 0);
INSERT INTO prescriptions VALUES (182, 61, 10, 8, NULL, '1 tablet', 'daily', 'PO', '2025-04-26', NULL, 11, 0);
INSERT INTO prescriptions VALUES (183, 47, 14, 18, NULL, '2 tablets', 'BID', 'PO', '2025-06-11', NULL, 1, 0);
INSERT INTO prescriptions VALUES (184, 36, 10, 3, NULL, '0.5 tablet', 'at bedtime', 'PO', '2025-08-07', NULL, 0, 0);
INSERT INTO prescriptions VALUES (185, 18, 2, 6, NULL, '2 tablets', 'BID', 'PO', '2025-08-09', NULL, 1, 0);
INSERT INTO prescriptions VALUES (186, 4, 6, 5, NULL, '1 tablet', 'BID', 'PO', '2025-09-27', NULL, 11, 0);
INSERT INTO prescriptions VALUES (187, 63, 14, 3, NULL, '2 tablets', 'BID', 'PO', '2025-02-23', NULL, 5, 0);
INSERT INTO prescriptions VALUES (188, 12, 2, 21, NULL, '1 tablet', 'at bedtime', 'PO', '2025-07-24', NULL, 5, 0);
INSERT INTO prescriptions VALUES (189, 55, 6, 7, NULL, '2 tablets', 'daily', 'PO', '2025-07-27', NULL, 11, 0);
INSERT INTO prescriptions VALUES (190, 14, 10, 7, NULL, '2 tablets', 'at bedtime', 'PO', '2025-08-04', NULL, 1, 0);
INSERT INTO prescriptions VALUES (191, 10, 18, 7, NULL, '1 tablet', 'daily', 'PO', '2025-05-28', NULL, 2, 0);
INSERT INTO prescriptions VALUES (192, 10, 10, 2, NULL, '0.5 tablet', 'BID', 'PO', '2025-02-26', NULL, 5, 0);
INSERT INTO prescriptions VALUES (193, 8, 14, 18, NULL, '0.5 tablet', 'daily', 'PO', '2025-03-02', NULL, 0, 0);
INSERT INTO prescriptions VALUES (194, 44, 18, 25, NULL, '2 tablets', 'at bedtime', 'PO', '2025-05-17', NULL, 5, 0);
INSERT INTO prescriptions VALUES (195, 12, 14, 8, NULL, '0.5 tablet', 'at bedtime', 'PO', '2025-11-20', NULL, 0, 0);
INSERT INTO prescriptions VALUES (196, 27, 18, 8, NULL, '0.5 tablet', 'BID', 'PO', '2025-09-24', NULL, 3, 0);
INSERT INTO prescriptions VALUES (197, 34, 2, 18, NULL, '2 tablets', 'daily', 'PO', '2025-05-22', NULL, 0, 0);
INSERT INTO prescriptions VALUES (198, 13, 6, 21, NULL, '0.5 tablet', 'BID', 'PO', '2025-06-06', NULL, 3, 0);
INSERT INTO prescriptions VALUES (199, 63, 6, 3, NULL, '0.5 tablet', 'BID', 'PO', '2025-04-03', NULL, 2, 0);
INSERT INTO prescriptions VALUES (200, 22, 18, 6, NULL, '1 tablet', 'BID', 'PO', '2025-02-19', NULL, 11, 0);
INSERT INTO prescriptions VALUES (201, 63, 2, 7, NULL, '1 tablet', 'daily', 'PO', '2025-08-04', NULL, 11, 0);

INSERT INTO lab_tests VALUES ('CBC-WBC', 'White blood cell count', 'whole blood', 4.5, 11.0, '10^3/uL', '6690-2');
INSERT INTO lab_tests VALUES ('CBC-HGB', 'Hemoglobin', 'whole blood', 12.0, 17.5, 'g/dL', '718-7');
INSERT INTO lab_tests VALUES ('CBC-PLT', 'Platelet count', 'whole blood', 150, 450, '10^3/uL', '777-3');
INSERT INTO lab_tests VALUES ('BMP-NA', 'Sodium', 'serum', 135, 145, 'mmol/L', '2951-2');
INSERT INTO lab_tests VALUES ('BMP-K', 'Potassium', 'serum', 3.5, 5.1, 'mmol/L', '2823-3');
INSERT INTO lab_tests VALUES ('BMP-CREA', 'Creatinine', 'serum', 0.6, 1.3, 'mg/dL', '2160-0');
INSERT INTO lab_tests VALUES ('BMP-GLU', 'Glucose', 'serum', 70, 99, 'mg/dL', '2345-7');
INSERT INTO lab_tests VALUES ('TROP-I', 'Troponin I', 'serum', 0.0, 0.04, 'ng/mL', '10839-9');
INSERT INTO lab_tests VALUES ('BNP', 'B-type natriuretic peptide', 'plasma', 0, 100, 'pg/mL', '30934-4');
INSERT INTO lab_tests VALUES ('HBA1C', 'Hemoglobin A1c', 'whole blood', 4.0, 5.6, '%', '4548-4');
INSERT INTO lab_tests VALUES ('INR', 'Prothrombin time INR', 'plasma', 0.8, 1.1, 'ratio', '6301-6');
INSERT INTO lab_tests VALUES ('LACT', 'Lactate', 'plasma', 0.5, 2.2, 'mmol/L', '2524-7');
INSERT INTO lab_tests VALUES ('UA-WBC', 'Urine white blood cells', 'urine', 0, 5, '/hpf', '5821-4');
INSERT INTO lab_tests VALUES ('CRP', 'C-reactive protein', 'serum', 0, 10, 'mg/L', '1988-5');

INSERT INTO labresults VALUES (1, 1, 'BMP-CREA', '2025-02-25 01:13', 0.99, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (2, 1, 'CBC-WBC', '2025-02-24 23:13', 16.4, 'H', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (3, 2, 'BMP-K', '2025-08-15 19:53', 4.64, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (4, 2, 'BMP-NA', '2025-08-16 08:53', 157.5, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (5, 2, 'LACT', '2025-08-16 02:53', 1.79, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (6, 2, 'CRP', '2025-08-16 07:53', 3.8, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (7, 3, 'BMP-K', '2025-03-07 13:03', 6.28, 'H', 'S. Huang, MLS');
INSERT INTO labresults VALUES (8, 3, 'BMP-CREA', '2025-03-07 10:03', 0.77, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (9, 3, 'TROP-I', '2025-03-07 04:03', 0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (10, 4, 'CBC-HGB', '2025-05-25 07:56', 12.5, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (11, 4, 'BMP-K', '2025-05-24 22:56', 4.77, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (12, 4, 'BNP', '2025-05-25 06:56', 97.7, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (13, 5, 'CBC-HGB', '2025-05-25 12:14', 12.2, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (14, 5, 'BMP-NA', '2025-05-25 21:14', 144.9, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (15, 6, 'CBC-WBC', '2025-09-09 10:58', 8.6, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (16, 6, 'BMP-NA', '2025-09-09 22:58', 152.4, 'H', 'T. Varga, MLT');
INSERT INTO labresults VALUES (17, 7, 'CBC-WBC', '2025-11-26 19:04', 7.9, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (18, 7, 'BMP-CREA', '2025-11-27 06:04', 0.73, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (19, 7, 'LACT', '2025-11-27 14:04', 1.76, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (20, 7, 'CRP', '2025-11-27 12:04', 9.6, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (21, 8, 'BMP-CREA', '2025-11-12 14:52', 1.12, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (22, 8, 'CBC-WBC', '2025-11-11 22:52', 20.2, 'HH', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (23, 9, 'BMP-NA', '2025-01-28 02:23', 141.5, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (24, 9, 'CBC-WBC', '2025-01-28 10:23', 6.0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (25, 9, 'LACT', '2025-01-28 13:23', 0.31, 'L', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (26, 9, 'CRP', '2025-01-28 03:23', 8.6, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (27, 10, 'BMP-CREA', '2025-03-13 01:57', 0.65, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (28, 10, 'BMP-K', '2025-03-14 01:57', 3.95, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (29, 11, 'BMP-K', '2025-07-01 01:43', 3.89, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (30, 11, 'BMP-CREA', '2025-06-30 21:43', 0.71, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (31, 12, 'BMP-NA', '2025-06-07 05:58', 159.0, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (32, 12, 'BMP-K', '2025-06-07 18:58', 5.09, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (33, 13, 'BMP-CREA', '2025-06-08 07:53', 1.05, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (34, 13, 'CBC-HGB', '2025-06-08 18:53', 12.6, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (35, 13, 'LACT', '2025-06-07 22:53', 0.78, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (36, 13, 'CRP', '2025-06-08 13:53', 19.2, 'H', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (37, 14, 'BMP-K', '2025-01-12 17:15', 5.94, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (38, 14, 'CBC-WBC', '2025-01-12 21:15', 7.7, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (39, 14, 'INR', '2025-01-12 03:15', 0.85, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (40, 15, 'CBC-WBC', '2025-01-25 19:12', 10.4, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (41, 15, 'CBC-HGB', '2025-01-25 08:12', 15.6, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (42, 16, 'BMP-NA', '2025-05-09 14:24', 159.9, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (43, 16, 'CBC-WBC', '2025-05-09 13:24', 4.0, 'L', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (44, 16, 'TROP-I', '2025-05-09 02:24', 0.02, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (45, 17, 'BMP-K', '2025-09-04 13:38', 7.31, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (46, 17, 'CBC-HGB', '2025-09-03 15:38', 15.3, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (47, 18, 'BMP-NA', '2025-05-19 04:21', 141.1, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (48, 18, 'CBC-HGB', '2025-05-20 04:21', 17.3, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (49, 19, 'BMP-NA', '2025-06-28 14:44', 143.9, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (50, 19, 'BMP-K', '2025-06-29 00:44', 4.2, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (51, 20, 'CBC-HGB', '2025-09-25 13:07', 16.3, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (52, 20, 'CBC-WBC', '2025-09-25 20:07', 16.9, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (53, 20, 'TROP-I', '2025-09-25 19:07', 0.01, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (54, 21, 'CBC-HGB', '2025-05-03 10:57', 15.0, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (55, 21, 'BMP-K', '2025-05-04 01:57', 3.6, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (56, 22, 'CBC-WBC', '2025-02-20 21:12', 20.0, 'HH', 'S. Huang, MLS');
INSERT INTO labresults VALUES (57, 22, 'CBC-HGB', '2025-02-21 13:12', 14.0, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (58, 23, 'CBC-WBC', '2025-09-14 11:06', 13.4, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (59, 23, 'BMP-K', '2025-09-14 18:06', 5.61, 'H', 'S. Huang, MLS');
INSERT INTO labresults VALUES (60, 24, 'CBC-WBC', '2025-03-04 07:25', 6.1, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (61, 24, 'CBC-HGB', '2025-03-03 17:25', 13.2, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (62, 25, 'BMP-CREA', '2025-03-04 06:25', 0.42, 'L', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (63, 25, 'BMP-NA', '2025-03-03 12:25', 136.7, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (64, 25, 'BNP', '2025-03-04 08:25', 2.7, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (65, 26, 'BMP-K', '2025-07-17 18:23', 3.11, 'L', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (66, 26, 'CBC-HGB', '2025-07-18 16:23', 17.0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (67, 27, 'BMP-CREA', '2025-01-05 20:25', 1.22, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (68, 27, 'CBC-HGB', '2025-01-05 18:25', 14.5, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (69, 28, 'BMP-K', '2025-03-11 08:28', 3.8, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (70, 28, 'BMP-CREA', '2025-03-12 12:28', 1.66, 'H', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (71, 29, 'CBC-HGB', '2025-01-25 17:53', 14.7, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (72, 29, 'CBC-WBC', '2025-01-26 06:53', 6.6, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (73, 29, 'TROP-I', '2025-01-26 09:53', 0.01, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (74, 30, 'CBC-HGB', '2025-07-19 09:27', 25.6, 'HH', 'S. Huang, MLS');
INSERT INTO labresults VALUES (75, 30, 'BMP-K', '2025-07-19 22:27', 4.51, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (76, 31, 'CBC-WBC', '2025-07-27 09:13', 18.8, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (77, 31, 'BMP-K', '2025-07-28 03:13', 4.75, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (78, 32, 'BMP-K', '2025-02-13 21:52', 4.47, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (79, 32, 'BMP-NA', '2025-02-14 04:52', 132.7, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (80, 33, 'CBC-HGB', '2025-05-07 20:05', 19.5, 'H', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (81, 33, 'BMP-NA', '2025-05-07 21:05', 134.4, 'L', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (82, 33, 'TROP-I', '2025-05-07 19:05', 0.07, 'H', 'T. Varga, MLT');
INSERT INTO labresults VALUES (83, 34, 'BMP-NA', '2025-03-29 23:51', 135.9, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (84, 34, 'BMP-CREA', '2025-03-30 11:51', 0.9, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (85, 34, 'UA-WBC', '2025-03-29 19:51', 2.82, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (86, 35, 'BMP-K', '2025-08-28 02:21', 5.87, 'H', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (87, 35, 'CBC-WBC', '2025-08-28 03:21', 5.8, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (88, 36, 'BMP-CREA', '2025-01-28 01:48', 2.08, 'HH', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (89, 36, 'CBC-HGB', '2025-01-27 10:48', 15.0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (90, 37, 'BMP-NA', '2025-06-09 06:07', 140.1, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (91, 37, 'BMP-CREA', '2025-06-09 06:07', 1.15, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (92, 38, 'BMP-NA', '2025-07-15 20:18', 142.5, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (93, 38, 'CBC-HGB', '2025-07-14 22:18', 16.0, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (94, 38, 'TROP-I', '2025-07-15 09:18', 0.07, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (95, 39, 'CBC-HGB', '2025-10-02 11:03', 22.2, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (96, 39, 'BMP-K', '2025-10-03 01:03', 4.37, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (97, 40, 'BMP-CREA', '2025-11-09 06:42', 0.48, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (98, 40, 'CBC-WBC', '2025-11-09 08:42', 13.9, 'H', 'T. Varga, MLT');
INSERT INTO labresults VALUES (99, 41, 'CBC-HGB', '2025-05-07 19:14', 24.9, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (100, 41, 'BMP-K', '2025-05-07 13:14', 4.64, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (101, 42, 'BMP-CREA', '2025-06-06 12:49', 0.42, 'L', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (102, 42, 'BMP-K', '2025-06-05 22:49', 3.61, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (103, 43, 'CBC-HGB', '2025-04-27 23:49', 15.0, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (104, 43, 'CBC-WBC', '2025-04-28 10:49', 7.0, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (105, 44, 'BMP-CREA', '2025-11-21 15:28', 0.37, 'L', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (106, 44, 'BMP-NA', '2025-11-21 20:28', 135.0, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (107, 45, 'BMP-NA', '2025-09-19 23:19', 144.6, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (108, 45, 'BMP-CREA', '2025-09-20 05:19', 0.6, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (109, 45, 'TROP-I', '2025-09-20 01:19', 0.06, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (110, 46, 'BMP-K', '2025-08-25 07:52', 7.5, 'HH', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (111, 46, 'CBC-HGB', '2025-08-25 05:52', 13.7, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (112, 46, 'UA-WBC', '2025-08-25 23:52', 0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (113, 47, 'CBC-WBC', '2025-06-20 04:50', 6.0, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (114, 47, 'BMP-CREA', '2025-06-20 07:50', 1.0, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (115, 47, 'TROP-I', '2025-06-20 16:50', 0.02, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (116, 48, 'BMP-NA', '2025-11-01 17:40', 135.8, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (117, 48, 'BMP-CREA', '2025-11-01 23:40', 1.01, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (118, 49, 'BMP-K', '2025-05-12 11:09', 4.98, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (119, 49, 'CBC-WBC', '2025-05-12 12:09', 4.8, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (120, 50, 'BMP-K', '2025-04-25 11:55', 4.47, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (121, 50, 'CBC-HGB', '2025-04-25 20:55', 23.7, 'HH', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (122, 51, 'BMP-CREA', '2025-11-11 05:55', 2.1, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (123, 51, 'CBC-WBC', '2025-11-11 12:55', 9.5, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (124, 51, 'HBA1C', '2025-11-11 09:55', 5.03, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (125, 51, 'BMP-GLU', '2025-11-11 22:55', 82.8, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (126, 52, 'BMP-NA', '2025-11-21 06:36', 140.4, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (127, 52, 'CBC-WBC', '2025-11-22 04:36', 8.2, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (128, 53, 'BMP-K', '2025-09-16 23:41', 5.78, 'H', 'S. Huang, MLS');
INSERT INTO labresults VALUES (129, 53, 'CBC-HGB', '2025-09-16 22:41', 14.3, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (130, 53, 'BNP', '2025-09-17 14:41', 147.0, 'H', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (131, 54, 'CBC-HGB', '2025-10-27 22:53', 17.2, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (132, 54, 'BMP-CREA', '2025-10-27 03:53', 2.12, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (133, 55, 'BMP-CREA', '2025-06-30 16:37', 0.67, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (134, 55, 'BMP-NA', '2025-07-01 02:37', 135.2, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (135, 55, 'BNP', '2025-07-01 21:37', 114.5, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (136, 56, 'BMP-CREA', '2025-08-26 02:22', 0.91, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (137, 56, 'CBC-WBC', '2025-08-25 17:22', 8.6, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (138, 57, 'BMP-CREA', '2025-05-03 09:13', 0.6, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (139, 57, 'CBC-HGB', '2025-05-03 06:13', 15.3, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (140, 58, 'CBC-HGB', '2025-08-12 21:54', 22.3, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (141, 58, 'BMP-K', '2025-08-13 11:54', 5.8, 'H', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (142, 59, 'BMP-CREA', '2025-01-08 14:51', 0.63, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (143, 59, 'CBC-HGB', '2025-01-08 21:51', 21.6, 'H', 'S. Huang, MLS');
INSERT INTO labresults VALUES (144, 60, 'BMP-K', '2025-02-25 19:06', 7.36, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (145, 60, 'CBC-WBC', '2025-02-24 20:06', 9.3, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (146, 61, 'CBC-WBC', '2025-10-23 17:33', 9.2, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (147, 61, 'BMP-NA', '2025-10-23 11:33', 141.1, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (148, 61, 'BNP', '2025-10-23 23:33', 148.8, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (149, 62, 'CBC-HGB', '2025-07-10 05:16', 16.8, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (150, 62, 'BMP-CREA', '2025-07-10 01:16', 1.24, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (151, 62, 'BNP', '2025-07-10 04:16', 0, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (152, 63, 'BMP-CREA', '2025-05-09 00:53', 1.02, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (153, 63, 'BMP-NA', '2025-05-09 10:53', 151.8, 'H', 'S. Huang, MLS');
INSERT INTO labresults VALUES (154, 63, 'LACT', '2025-05-09 00:53', 1.64, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (155, 63, 'CRP', '2025-05-09 08:53', 8.0, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (156, 64, 'CBC-HGB', '2025-04-01 17:23', 19.6, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (157, 64, 'BMP-CREA', '2025-04-01 17:23', 0.67, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (158, 65, 'BMP-NA', '2025-06-30 22:52', 143.9, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (159, 65, 'BMP-K', '2025-06-30 18:52', 3.25, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (160, 65, 'TROP-I', '2025-06-30 16:52', 0.02, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (161, 66, 'CBC-WBC', '2025-02-11 05:12', 8.3, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (162, 66, 'CBC-HGB', '2025-02-11 09:12', 15.9, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (163, 67, 'CBC-HGB', '2025-09-09 16:01', 13.6, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (164, 67, 'BMP-K', '2025-09-10 01:01', 3.14, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (165, 68, 'BMP-NA', '2025-02-24 17:19', 138.0, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (166, 68, 'BMP-K', '2025-02-24 16:19', 5.49, 'H', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (167, 68, 'LACT', '2025-02-25 05:19', 1.09, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (168, 68, 'CRP', '2025-02-25 13:19', 23.9, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (169, 69, 'CBC-HGB', '2025-07-03 00:15', 14.3, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (170, 69, 'BMP-K', '2025-07-02 10:15', 4.28, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (171, 70, 'BMP-K', '2025-09-11 16:08', 4.9, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (172, 70, 'CBC-HGB', '2025-09-11 09:08', 15.9, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (173, 71, 'CBC-HGB', '2025-02-19 04:12', 16.6, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (174, 71, 'BMP-K', '2025-02-19 10:12', 3.4, 'L', 'T. Varga, MLT');
INSERT INTO labresults VALUES (175, 72, 'CBC-WBC', '2025-11-03 17:32', 2.3, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (176, 72, 'BMP-K', '2025-11-02 19:32', 3.56, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (177, 73, 'CBC-WBC', '2025-05-23 10:28', 18.6, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (178, 73, 'BMP-CREA', '2025-05-22 23:28', 0.71, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (179, 74, 'BMP-CREA', '2025-08-02 14:23', 2.12, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (180, 74, 'CBC-HGB', '2025-08-03 11:23', 23.9, 'HH', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (181, 75, 'BMP-CREA', '2025-07-08 18:49', 0.66, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (182, 75, 'CBC-HGB', '2025-07-08 21:49', 12.0, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (183, 75, 'BNP', '2025-07-09 08:49', 82.5, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (184, 76, 'CBC-HGB', '2025-08-27 16:57', 23.2, 'HH', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (185, 76, 'BMP-K', '2025-08-26 18:57', 5.43, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (186, 76, 'TROP-I', '2025-08-26 18:57', 0.02, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (187, 77, 'BMP-K', '2025-02-22 01:16', 3.82, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (188, 77, 'CBC-HGB', '2025-02-21 13:16', 14.2, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (189, 77, 'HBA1C', '2025-02-21 16:16', 3.89, 'L', 'T. Varga, MLT');
INSERT INTO labresults VALUES (190, 77, 'BMP-GLU', '2025-02-21 20:16', 80.0, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (191, 78, 'CBC-HGB', '2025-04-24 10:13', 12.8, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (192, 78, 'CBC-WBC', '2025-04-23 20:13', 4.7, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (193, 79, 'CBC-WBC', '2025-02-25 03:38', 9.5, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (194, 79, 'BMP-CREA', '2025-02-25 16:38', 1.09, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (195, 79, 'LACT', '2025-02-25 13:38', 1.86, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (196, 79, 'CRP', '2025-02-25 18:38', 7.1, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (197, 80, 'BMP-CREA', '2025-10-07 12:52', 1.3, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (198, 80, 'BMP-K', '2025-10-07 14:52', 4.24, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (199, 81, 'CBC-WBC', '2025-04-29 23:45', 3.8, 'L', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (200, 81, 'BMP-CREA', '2025-04-30 06:45', 0.99, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (201, 81, 'HBA1C', '2025-04-30 10:45', 4.13, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (202, 81, 'BMP-GLU', '2025-04-29 12:45', 91.8, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (203, 82, 'CBC-WBC', '2025-07-04 22:24', 7.8, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (204, 82, 'BMP-NA', '2025-07-04 17:24', 138.3, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (205, 82, 'UA-WBC', '2025-07-05 09:24', 1.76, 'N', 'T. Varga, MLT');
INSERT INTO labresults VALUES (206, 83, 'CBC-HGB', '2025-05-22 03:03', 13.0, 'N', 'S. Huang, MLS');
INSERT INTO labresults VALUES (207, 83, 'BMP-CREA', '2025-05-22 16:03', 0.54, 'L', 'S. Huang, MLS');
INSERT INTO labresults VALUES (208, 84, 'CBC-WBC', '2025-02-14 10:49', 7.7, 'N', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (209, 84, 'BMP-CREA', '2025-02-15 00:49', 0.56, 'L', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (210, 85, 'CBC-HGB', '2025-07-18 06:18', 13.1, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (211, 85, 'BMP-NA', '2025-07-18 00:18', 143.4, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (212, 86, 'BMP-CREA', '2025-05-06 16:25', 1.45, 'H', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (213, 86, 'BMP-K', '2025-05-07 18:25', 4.29, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (214, 87, 'CBC-HGB', '2025-11-19 09:55', 19.9, 'H', 'T. Varga, MLT');
INSERT INTO labresults VALUES (215, 87, 'BMP-K', '2025-11-19 18:55', 3.87, 'N', 'J. Ortiz, MLS');
INSERT INTO labresults VALUES (216, 88, 'CBC-WBC', '2025-07-05 04:01', 15.8, 'H', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (217, 88, 'BMP-CREA', '2025-07-05 18:01', 0.66, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (218, 89, 'CBC-HGB', '2025-02-12 05:45', 21.9, 'H', 'T. Varga, MLT');
INSERT INTO labresults VALUES (219, 89, 'BMP-CREA', '2025-02-12 04:45', 0.43, 'L', 'R. Adeyemi, MLS');
INSERT INTO labresults VALUES (220, 89, 'INR', '2025-02-11 21:45', 1.42, 'HH', 'T. Varga, MLT');
INSERT INTO labresults VALUES (221, 90, 'BMP-NA', '2025-05-30 11:06', 141.9, 'N', 'K. Brennan, MLT');
INSERT INTO labresults VALUES (222, 90, 'BMP-CREA', '2025-05-30 19:06', 0.96, 'N', 'S. Huang, MLS');

INSERT INTO appointments VALUES (1, 49, 12, '2025-06-17', '11:30', 'Headache', 'Completed', 'Clinic B-7', 30);
INSERT INTO appointments VALUES (2, 21, 6, '2025-11-29', '09:15', 'Chest pain', 'Scheduled', 'Clinic A-4', 15);
INSERT INTO appointments VALUES (3, 56, 13, '2025-06-28', '14:15', 'Knee pain', 'Completed', 'Clinic B-5', 30);
INSERT INTO appointments VALUES (4, 61, 4, '2025-05-09', '11:45', 'Seizure follow-up', 'Cancelled', 'Clinic C-9', 15);
INSERT INTO appointments VALUES (5, 70, 6, '2025-10-03', '08:30', 'Diabetes management', 'Completed', 'Clinic C-9', 60);
INSERT INTO appointments VALUES (6, 48, 10, '2025-01-08', '15:00', 'Shortness of breath', 'Completed', 'Clinic B-6', 20);
INSERT INTO appointments VALUES (7, 42, 9, '2025-08-28', '13:30', 'Annual physical', 'Completed', 'Clinic C-8', 45);
INSERT INTO appointments VALUES (8, 44, 1, '2025-10-01', '13:15', 'Headache', 'Completed', 'Clinic A-3', 30);
INSERT INTO appointments VALUES (9, 58, 2, '2025-07-03', '08:15', 'Knee pain', 'Completed', 'Clinic B-1', 15);
INSERT INTO appointments VALUES (10, 49, 6, '2025-10-01', '11:45', 'Diabetes management', 'Completed', 'Clinic B-4', 30);
INSERT INTO appointments VALUES (11, 53, 2, '2025-12-18', '15:00', 'Prenatal visit', 'Scheduled', 'Clinic B-4', 45);
INSERT INTO appointments VALUES (12, 11, 14, '2025-12-02', '15:00', 'Chest pain', 'Scheduled', 'Clinic B-9', 60);
INSERT INTO appointments VALUES (13, 16, 8, '2025-09-09', '08:45', 'Annual physical', 'Completed', 'Clinic A-3', 30);
INSERT INTO appointments VALUES (14, 6, 1, '2025-05-08', '16:45', 'Headache', 'Completed', 'Clinic C-3', 45);
INSERT INTO appointments VALUES (15, 18, 19, '2025-12-22', '13:15', 'Knee pain', 'Scheduled', 'Clinic C-3', 20);
INSERT INTO appointments VALUES (16, 35, 2, '2025-06-13', '11:45', 'Headache', 'Completed', 'Clinic A-8', 30);
INSERT INTO appointments VALUES (17, 28, 10, '2025-01-27', '15:30', 'Blood pressure check', 'No-show', 'Clinic B-2', 30);
INSERT INTO appointments VALUES (18, 31, 2, '2025-07-17', '10:15', 'Knee pain', 'Completed', 'Clinic C-1', 20);
INSERT INTO appointments VALUES (19, 20, 3, '2025-03-12', '15:45', 'Well-child visit', 'Completed', 'Clinic A-1', 15);
INSERT INTO appointments VALUES (20, 44, 7, '2025-06-26', '08:45', 'Chemotherapy consult', 'Completed', 'Clinic B-7', 60);
INSERT INTO appointments VALUES (21, 53, 2, '2025-02-07', '15:15', 'Diabetes management', 'Completed', 'Clinic C-9', 30);
INSERT INTO appointments VALUES (22, 58, 3, '2025-11-02', '12:00', 'Prenatal visit', 'Completed', 'Clinic C-8', 15);
INSERT INTO appointments VALUES (23, 7, 5, '2025-11-17', '14:45', 'Shortness of breath', 'Completed', 'Clinic A-3', 30);
INSERT INTO appointments VALUES (24, 18, 12, '2025-01-23', '14:45', 'Post-operative check', 'Completed', 'Clinic C-1', 60);
INSERT INTO appointments VALUES (25, 14, 13, '2025-08-12', '12:00', 'Diabetes management', 'Completed', 'Clinic A-7', 30);
INSERT INTO appointments VALUES (26, 31, 9, '2025-09-10', '12:45', 'Medication review', 'No-show', 'Clinic A-9', 45);
INSERT INTO appointments VALUES (27, 61, 12, '2025-02-03', '15:00', 'Diabetes management', 'Completed', 'Clinic C-6', 60);
INSERT INTO appointments VALUES (28, 55, 14, '2025-11-15', '14:00', 'Prenatal visit', 'Completed', 'Clinic C-2', 15);
INSERT INTO appointments VALUES (29, 50, 2, '2025-05-04', '09:15', 'Annual physical', 'Completed', 'Clinic B-7', 60);
INSERT INTO appointments VALUES (30, 28, 15, '2025-04-05', '16:30', 'Well-child visit', 'Completed', 'Clinic A-5', 30);
INSERT INTO appointments VALUES (31, 25, 3, '2025-09-24', '15:45', 'Headache', 'Completed', 'Clinic B-1', 30);
INSERT INTO appointments VALUES (32, 61, 17, '2025-03-21', '11:00', 'Medication review', 'No-show', 'Clinic A-6', 45);
INSERT INTO appointments VALUES (33, 51, 15, '2025-05-02', '09:15', 'Follow-up after discharge', 'Completed', 'Clinic A-8', 15);
INSERT INTO appointments VALUES (34, 47, 8, '2025-06-12', '15:15', 'Shortness of breath', 'Completed', 'Clinic B-5', 45);
INSERT INTO appointments VALUES (35, 54, 2, '2025-07-22', '13:45', 'Post-operative check', 'Cancelled', 'Clinic B-8', 30);
INSERT INTO appointments VALUES (36, 34, 18, '2025-03-17', '08:00', 'Annual physical', 'Completed', 'Clinic A-9', 60);
INSERT INTO appointments VALUES (37, 10, 11, '2025-10-04', '12:30', 'Diabetes management', 'Completed', 'Clinic A-1', 15);
INSERT INTO appointments VALUES (38, 34, 7, '2025-11-10', '10:15', 'Diabetes management', 'Completed', 'Clinic B-2', 30);
INSERT INTO appointments VALUES (39, 47, 13, '2025-09-17', '16:45', 'Shortness of breath', 'Completed', 'Clinic C-4', 20);
INSERT INTO appointments VALUES (40, 49, 10, '2025-02-06', '14:45', 'Medication review', 'Completed', 'Clinic A-3', 20);
INSERT INTO appointments VALUES (41, 29, 16, '2025-04-30', '13:45', 'Chemotherapy consult', 'Completed', 'Clinic C-5', 30);
INSERT INTO appointments VALUES (42, 4, 15, '2025-12-18', '11:15', 'Chest pain', 'Scheduled', 'Clinic B-5', 30);
INSERT INTO appointments VALUES (43, 41, 14, '2025-02-14', '12:00', 'Diabetes management', 'Completed', 'Clinic C-8', 60);
INSERT INTO appointments VALUES (44, 43, 8, '2025-01-18', '11:45', 'Well-child visit', 'Completed', 'Clinic C-4', 30);
INSERT INTO appointments VALUES (45, 68, 18, '2025-06-24', '14:15', 'Blood pressure check', 'No-show', 'Clinic A-6', 60);
INSERT INTO appointments VALUES (46, 16, 4, '2025-03-06', '08:00', 'Diabetes management', 'Completed', 'Clinic B-4', 30);
INSERT INTO appointments VALUES (47, 21, 7, '2025-07-06', '10:15', 'Prenatal visit', 'Completed', 'Clinic B-5', 30);
INSERT INTO appointments VALUES (48, 56, 2, '2025-02-28', '11:30', 'Well-child visit', 'Completed', 'Clinic A-5', 20);
INSERT INTO appointments VALUES (49, 35, 17, '2025-11-25', '15:00', 'Seizure follow-up', 'Scheduled', 'Clinic A-5', 30);
INSERT INTO appointments VALUES (50, 2, 5, '2025-12-08', '09:45', 'Headache', 'Scheduled', 'Clinic A-7', 20);
INSERT INTO appointments VALUES (51, 4, 19, '2025-05-23', '16:00', 'Seizure follow-up', 'Cancelled', 'Clinic A-2', 45);
INSERT INTO appointments VALUES (52, 27, 5, '2025-02-27', '08:15', 'Chemotherapy consult', 'Completed', 'Clinic A-7', 30);
INSERT INTO appointments VALUES (53, 6, 15, '2025-04-15', '12:00', 'Knee pain', 'Completed', 'Clinic A-4', 20);
INSERT INTO appointments VALUES (54, 12, 12, '2025-08-09', '11:45', 'Well-child visit', 'Completed', 'Clinic B-4', 20);
INSERT INTO appointments VALUES (55, 29, 20, '2025-10-11', '15:15', 'Chest pain', 'Completed', 'Clinic B-3', 45);
INSERT INTO appointments VALUES (56, 65, 4, '2025-11-05', '14:30', 'Diabetes management', 'Completed', 'Clinic B-2', 15);
INSERT INTO appointments VALUES (57, 15, 16, '2025-10-26', '14:30', 'Chest pain', 'No-show', 'Clinic C-3', 30);
INSERT INTO appointments VALUES (58, 16, 19, '2025-07-25', '14:00', 'Medication review', 'Completed', 'Clinic A-9', 60);
INSERT INTO appointments VALUES (59, 31, 6, '2025-02-22', '10:30', 'Chemotherapy consult', 'Completed', 'Clinic C-1', 30);
INSERT INTO appointments VALUES (60, 32, 4, '2025-08-05', '16:15', 'Seizure follow-up', 'No-show', 'Clinic A-6', 30);
INSERT INTO appointments VALUES (61, 62, 6, '2025-12-01', '11:15', 'Post-operative check', 'Scheduled', 'Clinic A-8', 45);
INSERT INTO appointments VALUES (62, 52, 13, '2025-08-07', '15:30', 'Prenatal visit', 'Completed', 'Clinic B-6', 20);
INSERT INTO appointments VALUES (63, 11, 20, '2025-08-05', '09:15', 'Medication review', 'Completed', 'Clinic B-2', 45);
INSERT INTO appointments VALUES (64, 37, 4, '2025-02-05', '13:30', 'Follow-up after discharge', 'Completed', 'Clinic A-5', 30);
INSERT INTO appointments VALUES (65, 39, 18, '2025-11-29', '16:00', 'Annual physical', 'Scheduled', 'Clinic B-3', 30);
INSERT INTO appointments VALUES (66, 40, 19, '2025-07-06', '13:00', 'Chest pain', 'Completed', 'Clinic B-9', 30);
INSERT INTO appointments VALUES (67, 5, 17, '2025-01-29', '16:30', 'Prenatal visit', 'Completed', 'Clinic C-1', 60);
INSERT INTO appointments VALUES (68, 2, 20, '2025-11-03', '09:45', 'Diabetes management', 'No-show', 'Clinic B-7', 60);
INSERT INTO appointments VALUES (69, 69, 3, '2025-02-14', '09:30', 'Chemotherapy consult', 'Completed', 'Clinic A-7', 60);
INSERT INTO appointments VALUES (70, 18, 11, '2025-02-26', '09:45', 'Prenatal visit', 'Completed', 'Clinic A-9', 15);
INSERT INTO appointments VALUES (71, 51, 20, '2025-06-25', '16:45', 'Shortness of breath', 'Completed', 'Clinic B-7', 30);
INSERT INTO appointments VALUES (72, 8, 4, '2025-05-12', '10:30', 'Blood pressure check', 'Completed', 'Clinic B-1', 15);
INSERT INTO appointments VALUES (73, 49, 14, '2025-05-20', '12:00', 'Well-child visit', 'Completed', 'Clinic A-8', 15);
INSERT INTO appointments VALUES (74, 12, 9, '2025-04-21', '12:30', 'Post-operative check', 'Completed', 'Clinic C-6', 30);
INSERT INTO appointments VALUES (75, 20, 16, '2025-08-23', '12:15', 'Blood pressure check', 'No-show', 'Clinic A-3', 30);
INSERT INTO appointments VALUES (76, 42, 6, '2025-10-25', '09:15', 'Blood pressure check', 'Completed', 'Clinic A-2', 15);
INSERT INTO appointments VALUES (77, 61, 16, '2025-06-07', '10:30', 'Blood pressure check', 'Completed', 'Clinic B-8', 30);
INSERT INTO appointments VALUES (78, 21, 14, '2025-05-02', '08:15', 'Shortness of breath', 'Completed', 'Clinic A-7', 45);
INSERT INTO appointments VALUES (79, 14, 16, '2025-01-20', '09:15', 'Seizure follow-up', 'Completed', 'Clinic C-7', 20);
INSERT INTO appointments VALUES (80, 24, 7, '2025-10-05', '16:30', 'Headache', 'Completed', 'Clinic C-3', 30);
INSERT INTO appointments VALUES (81, 34, 20, '2025-06-24', '11:30', 'Well-child visit', 'Cancelled', 'Clinic A-1', 15);
INSERT INTO appointments VALUES (82, 30, 18, '2025-06-12', '08:45', 'Seizure follow-up', 'Completed', 'Clinic B-4', 30);
INSERT INTO appointments VALUES (83, 22, 4, '2025-09-26', '15:15', 'Diabetes management', 'Cancelled', 'Clinic C-6', 45);
INSERT INTO appointments VALUES (84, 53, 1, '2025-11-03', '09:15', 'Medication review', 'Completed', 'Clinic C-8', 30);
INSERT INTO appointments VALUES (85, 48, 2, '2025-12-24', '08:15', 'Well-child visit', 'Scheduled', 'Clinic B-7', 30);
INSERT INTO appointments VALUES (86, 56, 11, '2025-11-04', '12:15', 'Seizure follow-up', 'No-show', 'Clinic C-7', 15);
INSERT INTO appointments VALUES (87, 37, 8, '2025-05-18', '15:00', 'Knee pain', 'Completed', 'Clinic C-8', 45);
INSERT INTO appointments VALUES (88, 35, 7, '2025-03-07', '16:00', 'Seizure follow-up', 'Completed', 'Clinic C-5', 20);
INSERT INTO appointments VALUES (89, 26, 19, '2025-12-03', '09:30', 'Well-child visit', 'Scheduled', 'Clinic B-2', 15);
INSERT INTO appointments VALUES (90, 15, 20, '2025-12-08', '16:30', 'Diabetes management', 'Scheduled', 'Clinic A-8', 60);
INSERT INTO appointments VALUES (91, 15, 3, '2025-05-20', '08:45', 'Chest pain', 'Completed', 'Clinic A-7', 20);
INSERT INTO appointments VALUES (92, 70, 3, '2025-09-19', '09:30', 'Post-operative check', 'Completed', 'Clinic C-9', 45);
INSERT INTO appointments VALUES (93, 32, 9, '2025-06-11', '14:45', 'Shortness of breath', 'Completed', 'Clinic C-1', 45);
INSERT INTO appointments VALUES (94, 69, 4, '2025-06-11', '14:15', 'Follow-up after discharge', 'Completed', 'Clinic C-3', 15);
INSERT INTO appointments VALUES (95, 39, 2, '2025-10-03', '08:15', 'Diabetes management', 'Completed', 'Clinic A-1', 45);
INSERT INTO appointments VALUES (96, 31, 12, '2025-08-17', '10:00', 'Post-operative check', 'Completed', 'Clinic A-7', 30);
INSERT INTO appointments VALUES (97, 19, 6, '2025-12-20', '10:15', 'Medication review', 'Scheduled', 'Clinic A-4', 45);
INSERT INTO appointments VALUES (98, 56, 19, '2025-01-04', '10:45', 'Diabetes management', 'No-show', 'Clinic A-5', 30);
INSERT INTO appointments VALUES (99, 33, 14, '2025-03-05', '09:15', 'Headache', 'Cancelled', 'Clinic B-9', 15);
INSERT INTO appointments VALUES (100, 47, 10, '2025-09-23', '08:30', 'Well-child visit', 'Completed', 'Clinic A-3', 45);
INSERT INTO appointments VALUES (101, 41, 13, '2025-09-03', '12:15', 'Chemotherapy consult', 'No-show', 'Clinic B-7', 45);
INSERT INTO appointments VALUES (102, 15, 18, '2025-03-19', '10:00', 'Shortness of breath', 'Completed', 'Clinic A-9', 45);
INSERT INTO appointments VALUES (103, 64, 8, '2025-07-22', '16:15', 'Chest pain', 'Completed', 'Clinic C-8', 30);
INSERT INTO appointments VALUES (104, 41, 3, '2025-10-31', '15:30', 'Headache', 'Completed', 'Clinic B-5', 30);
INSERT INTO appointments VALUES (105, 50, 3, '2025-05-05', '14:15', 'Seizure follow-up', 'Completed', 'Clinic A-3', 30);
INSERT INTO appointments VALUES (106, 45, 13, '2025-05-03', '09:30', 'Headache', 'No-show', 'Clinic A-6', 30);
INSERT INTO appointments VALUES (107, 55, 4, '2025-08-22', '11:45', 'Diabetes management', 'Completed', 'Clinic C-8', 30);
INSERT INTO appointments VALUES (108, 55, 16, '2025-03-14', '09:30', 'Prenatal visit', 'Completed', 'Clinic C-1', 15);
INSERT INTO appointments VALUES (109, 64, 9, '2025-08-02', '12:15', 'Follow-up after discharge', 'Cancelled', 'Clinic B-4', 15);
INSERT INTO appointments VALUES (110, 46, 12, '2025-12-04', '16:15', 'Annual physical', 'Scheduled', 'Clinic C-4', 30);
INSERT INTO appointments VALUES (111, 32, 2, '2025-11-13', '08:45', 'Well-child visit', 'Completed', 'Clinic A-9', 60);
INSERT INTO appointments VALUES (112, 44, 14, '2025-10-27', '09:15', 'Knee pain', 'Completed', 'Clinic A-7', 30);
INSERT INTO appointments VALUES (113, 7, 17, '2025-01-19', '11:45', 'Knee pain', 'Completed', 'Clinic C-6', 60);
INSERT INTO appointments VALUES (114, 52, 11, '2025-02-13', '08:45', 'Annual physical', 'Completed', 'Clinic C-8', 60);
INSERT INTO appointments VALUES (115, 44, 20, '2025-06-06', '10:45', 'Prenatal visit', 'Cancelled', 'Clinic C-3', 45);
INSERT INTO appointments VALUES (116, 50, 17, '2025-11-14', '10:30', 'Chemotherapy consult', 'Cancelled', 'Clinic C-9', 30);
INSERT INTO appointments VALUES (117, 56, 4, '2025-11-03', '13:45', 'Headache', 'Cancelled', 'Clinic B-9', 15);
INSERT INTO appointments VALUES (118, 24, 17, '2025-01-11', '12:00', 'Seizure follow-up', 'Completed', 'Clinic C-1', 45);
INSERT INTO appointments VALUES (119, 15, 1, '2025-10-23', '09:45', 'Knee pain', 'Completed', 'Clinic C-6', 60);
INSERT INTO appointments VALUES (120, 48, 18, '2025-09-09', '13:30', 'Post-operative check', 'Completed', 'Clinic A-6', 15);
INSERT INTO appointments VALUES (121, 1, 11, '2025-09-11', '12:45', 'Diabetes management', 'Completed', 'Clinic B-7', 30);
INSERT INTO appointments VALUES (122, 68, 1, '2025-04-09', '12:45', 'Seizure follow-up', 'Completed', 'Clinic C-6', 30);
INSERT INTO appointments VALUES (123, 26, 16, '2025-09-06', '10:45', 'Prenatal visit', 'Completed', 'Clinic A-2', 30);
INSERT INTO appointments VALUES (124, 36, 19, '2025-06-17', '10:15', 'Chemotherapy consult', 'Cancelled', 'Clinic A-6', 20);
INSERT INTO appointments VALUES (125, 46, 17, '2025-07-25', '14:30', 'Annual physical', 'Completed', 'Clinic A-1', 30);
INSERT INTO appointments VALUES (126, 60, 16, '2025-12-14', '15:30', 'Headache', 'Scheduled', 'Clinic B-1', 15);
INSERT INTO appointments VALUES (127, 15, 4, '2025-05-29', '13:15', 'Medication review', 'Completed', 'Clinic C-7', 15);
INSERT INTO appointments VALUES (128, 16, 8, '2025-05-16', '12:00', 'Follow-up after discharge', 'Completed', 'Clinic C-3', 20);
INSERT INTO appointments VALUES (129, 20, 8, '2025-11-15', '12:30', 'Annual physical', 'Completed', 'Clinic A-3', 60);
INSERT INTO appointments VALUES (130, 38, 13, '2025-05-29', '09:00', 'Headache', 'Completed', 'Clinic C-9', 45);

INSERT INTO procedures VALUES (1, 3, '93458', 'Left heart catheterization with coronary angiography', 18, '2025-03-07', 'moderate sedation', 52);
INSERT INTO procedures VALUES (2, 8, '19301', 'Partial mastectomy (lumpectomy)', 20, '2025-11-12', 'general', 86);
INSERT INTO procedures VALUES (3, 11, '44970', 'Laparoscopic appendectomy', 17, '2025-06-30', 'general', 79);
INSERT INTO procedures VALUES (4, 12, '44970', 'Laparoscopic appendectomy', 1, '2025-06-06', 'general', 78);
INSERT INTO procedures VALUES (5, 14, '37184', 'Mechanical thrombectomy, intracranial artery', 8, '2025-01-11', 'general', 97);
INSERT INTO procedures VALUES (6, 15, '44970', 'Laparoscopic appendectomy', 17, '2025-01-25', 'general', 50);
INSERT INTO procedures VALUES (7, 16, '93458', 'Left heart catheterization with coronary angiography', 2, '2025-05-08', 'moderate sedation', 61);
INSERT INTO procedures VALUES (8, 17, '31628', 'Bronchoscopy with transbronchial lung biopsy', 20, '2025-09-03', 'moderate sedation', 48);
INSERT INTO procedures VALUES (9, 18, '59400', 'Vaginal delivery with routine obstetric care', 7, '2025-05-18', 'epidural', 452);
INSERT INTO procedures VALUES (10, 19, '31628', 'Bronchoscopy with transbronchial lung biopsy', 4, '2025-06-28', 'moderate sedation', 35);
INSERT INTO procedures VALUES (11, 20, '92928', 'Percutaneous coronary stent placement', 10, '2025-09-25', 'moderate sedation', 92);
INSERT INTO procedures VALUES (12, 20, '93458', 'Left heart catheterization with coronary angiography', 10, '2025-09-25', 'moderate sedation', 47);
INSERT INTO procedures VALUES (13, 21, '19301', 'Partial mastectomy (lumpectomy)', 20, '2025-05-03', 'general', 95);
INSERT INTO procedures VALUES (14, 28, '27236', 'Open treatment of femoral neck fracture, hemiarthroplasty', 19, '2025-03-11', 'general', 125);
INSERT INTO procedures VALUES (15, 29, '93458', 'Left heart catheterization with coronary angiography', 10, '2025-01-25', 'moderate sedation', 63);
INSERT INTO procedures VALUES (16, 31, '44970', 'Laparoscopic appendectomy', 1, '2025-07-28', 'general', 53);
INSERT INTO procedures VALUES (17, 33, '92928', 'Percutaneous coronary stent placement', 2, '2025-05-07', 'moderate sedation', 81);
INSERT INTO procedures VALUES (18, 33, '93458', 'Left heart catheterization with coronary angiography', 2, '2025-05-07', 'moderate sedation', 67);
INSERT INTO procedures VALUES (19, 35, '27447', 'Total knee arthroplasty', 3, '2025-08-27', 'spinal', 101);
INSERT INTO procedures VALUES (20, 37, '59400', 'Vaginal delivery with routine obstetric care', 7, '2025-06-09', 'epidural', 467);
INSERT INTO procedures VALUES (21, 38, '93458', 'Left heart catheterization with coronary angiography', 18, '2025-07-15', 'moderate sedation', 35);
INSERT INTO procedures VALUES (22, 39, '27236', 'Open treatment of femoral neck fracture, hemiarthroplasty', 3, '2025-10-02', 'general', 121);
INSERT INTO procedures VALUES (23, 40, '27447', 'Total knee arthroplasty', 19, '2025-11-08', 'spinal', 124);
INSERT INTO procedures VALUES (24, 41, '31628', 'Bronchoscopy with transbronchial lung biopsy', 4, '2025-05-08', 'moderate sedation', 38);
INSERT INTO procedures VALUES (25, 44, '44970', 'Laparoscopic appendectomy', 9, '2025-11-22', 'general', 87);
INSERT INTO procedures VALUES (26, 45, '92928', 'Percutaneous coronary stent placement', 2, '2025-09-19', 'moderate sedation', 102);
INSERT INTO procedures VALUES (27, 45, '93458', 'Left heart catheterization with coronary angiography', 2, '2025-09-20', 'moderate sedation', 37);
INSERT INTO procedures VALUES (28, 47, '92928', 'Percutaneous coronary stent placement', 18, '2025-06-20', 'moderate sedation', 77);
INSERT INTO procedures VALUES (29, 47, '93458', 'Left heart catheterization with coronary angiography', 18, '2025-06-19', 'moderate sedation', 69);
INSERT INTO procedures VALUES (30, 48, '27447', 'Total knee arthroplasty', 19, '2025-11-01', 'spinal', 137);
INSERT INTO procedures VALUES (31, 52, '27236', 'Open treatment of femoral neck fracture, hemiarthroplasty', 19, '2025-11-21', 'general', 113);
INSERT INTO procedures VALUES (32, 56, '19301', 'Partial mastectomy (lumpectomy)', 12, '2025-08-26', 'general', 79);
INSERT INTO procedures VALUES (33, 58, '44970', 'Laparoscopic appendectomy', 9, '2025-08-12', 'general', 89);
INSERT INTO procedures VALUES (34, 64, '59400', 'Vaginal delivery with routine obstetric care', 15, '2025-04-01', 'epidural', 646);
INSERT INTO procedures VALUES (35, 65, '92928', 'Percutaneous coronary stent placement', 2, '2025-06-29', 'moderate sedation', 70);
INSERT INTO procedures VALUES (36, 65, '93458', 'Left heart catheterization with coronary angiography', 2, '2025-06-30', 'moderate sedation', 62);
INSERT INTO procedures VALUES (37, 66, '31628', 'Bronchoscopy with transbronchial lung biopsy', 4, '2025-02-10', 'moderate sedation', 59);
INSERT INTO procedures VALUES (38, 67, '27447', 'Total knee arthroplasty', 19, '2025-09-08', 'spinal', 117);
INSERT INTO procedures VALUES (39, 69, '44970', 'Laparoscopic appendectomy', 1, '2025-07-02', 'general', 73);
INSERT INTO procedures VALUES (40, 70, '27447', 'Total knee arthroplasty', 3, '2025-09-11', 'spinal', 103);
INSERT INTO procedures VALUES (41, 72, '27236', 'Open treatment of femoral neck fracture, hemiarthroplasty', 19, '2025-11-03', 'general', 138);
INSERT INTO procedures VALUES (42, 76, '92928', 'Percutaneous coronary stent placement', 10, '2025-08-26', 'moderate sedation', 62);
INSERT INTO procedures VALUES (43, 80, '31628', 'Bronchoscopy with transbronchial lung biopsy', 20, '2025-10-07', 'moderate sedation', 45);
INSERT INTO procedures VALUES (44, 83, '44970', 'Laparoscopic appendectomy', 9, '2025-05-22', 'general', 65);
INSERT INTO procedures VALUES (45, 84, '27447', 'Total knee arthroplasty', 3, '2025-02-13', 'spinal', 116);
INSERT INTO procedures VALUES (46, 85, '27447', 'Total knee arthroplasty', 11, '2025-07-18', 'spinal', 97);
INSERT INTO procedures VALUES (47, 87, '44970', 'Laparoscopic appendectomy', 9, '2025-11-18', 'general', 77);
INSERT INTO procedures VALUES (48, 88, '31628', 'Bronchoscopy with transbronchial lung biopsy', 12, '2025-07-05', 'moderate sedation', 44);
INSERT INTO procedures VALUES (49, 89, '37184', 'Mechanical thrombectomy, intracranial artery', 8, '2025-02-11', 'general', 91);

INSERT INTO invoices VALUES (1, 1, 36, 8, '2025-03-11', 28504.24, 24734.32, 0, 3769.92, 'In collections');
INSERT INTO invoices VALUES (2, 2, 6, 1, '2025-08-20', 8703.67, 6657.88, 1000, 1045.79, 'Open');
INSERT INTO invoices VALUES (3, 3, 34, 4, '2025-03-27', 48369.55, 39515.45, 8854.1, 0.0, 'Paid');
INSERT INTO invoices VALUES (4, 4, 31, 5, '2025-06-05', 15707.98, 13385.82, 1000, 1322.16, 'In collections');
INSERT INTO invoices VALUES (5, 5, 16, 4, '2025-06-01', 14463.42, 9597.68, 1000, 3865.74, 'In collections');
INSERT INTO invoices VALUES (6, 6, 37, 6, '2025-09-21', 23017.44, 14403.53, 0, 8613.91, 'Open');
INSERT INTO invoices VALUES (7, 7, 7, 8, '2025-12-05', 24185.62, 14727.2, 1000, 8458.42, 'In collections');
INSERT INTO invoices VALUES (8, 8, 57, NULL, '2025-11-25', 28888.11, 0.0, 0, 28888.11, 'Open');
INSERT INTO invoices VALUES (9, 9, 54, 4, '2025-02-11', 13502.62, 9503.6, 3999.02, 0.0, 'Paid');
INSERT INTO invoices VALUES (10, 10, 15, 3, '2025-03-29', 14095.86, 11291.33, 250, 2554.53, 'In collections');
INSERT INTO invoices VALUES (11, 11, 30, 6, '2025-07-13', 21771.71, 15632.99, 6138.72, -0.0, 'Paid');
INSERT INTO invoices VALUES (12, 12, 28, 4, '2025-06-12', 33402.51, 29571.26, 500, 3331.25, 'In collections');
INSERT INTO invoices VALUES (13, 13, 49, 5, '2025-06-19', 27119.21, 23008.67, 4110.54, 0.0, 'Paid');
INSERT INTO invoices VALUES (14, 14, 6, 1, '2025-01-18', 22307.6, 18290.7, 0, 4016.9, 'Payment plan');
INSERT INTO invoices VALUES (15, 15, 33, 5, '2025-01-29', 23365.05, 17779.78, 250, 5335.27, 'In collections');
INSERT INTO invoices VALUES (16, 16, 32, 7, '2025-05-22', 41666.67, 33345.22, 1000, 7321.45, 'Open');
INSERT INTO invoices VALUES (17, 17, 7, 8, '2025-09-15', 49137.22, 39665.78, 250, 9221.44, 'Open');
INSERT INTO invoices VALUES (18, 18, 34, 4, '2025-05-31', 45579.48, 35443.76, 1000, 9135.72, 'Payment plan');
INSERT INTO invoices VALUES (19, 19, 42, 3, '2025-07-06', 20114.03, 13723.85, 0, 6390.18, 'In collections');
INSERT INTO invoices VALUES (20, 20, 16, 4, '2025-10-03', 24053.34, 20452.22, 500, 3101.12, 'Open');
INSERT INTO invoices VALUES (21, 21, 64, 1, '2025-05-12', 45597.67, 31413.93, 0, 14183.74, 'Open');
INSERT INTO invoices VALUES (22, 22, 62, 4, '2025-02-28', 8096.6, 6140.66, 0, 1955.94, 'Open');
INSERT INTO invoices VALUES (23, 23, 31, 5, '2025-09-30', 42159.29, 29721.04, 500, 11938.25, 'Open');
INSERT INTO invoices VALUES (24, 24, 9, 4, '2025-03-10', 10902.68, 8844.26, 2058.42, 0.0, 'Paid');
INSERT INTO invoices VALUES (25, 25, 3, 4, '2025-03-18', 31773.4, 25180.24, 250, 6343.16, 'In collections');
INSERT INTO invoices VALUES (26, 26, 54, 4, '2025-07-22', 6430.03, 5021.51, 1408.52, -0.0, 'Paid');
INSERT INTO invoices VALUES (27, 27, 17, 1, '2025-01-14', 9293.88, 6391.91, 1000, 1901.97, 'Open');
INSERT INTO invoices VALUES (28, 28, 12, 7, '2025-03-21', 33358.53, 21381.3, 1000, 10977.23, 'In collections');
INSERT INTO invoices VALUES (29, 29, 46, 8, '2025-02-07', 31760.75, 19239.2, 0, 12521.55, 'Open');
INSERT INTO invoices VALUES (30, 30, 13, 2, '2025-07-24', 12156.96, 9235.89, 250, 2671.07, 'Open');
INSERT INTO invoices VALUES (31, 31, 42, 3, '2025-08-10', 40405.24, 26388.54, 250, 13766.7, 'In collections');
INSERT INTO invoices VALUES (32, 32, 25, NULL, '2025-02-27', 23800.08, 0.0, 250, 23550.08, 'In collections');
INSERT INTO invoices VALUES (33, 33, 14, 3, '2025-05-26', 76249.1, 55955.41, 250, 20043.69, 'Open');
INSERT INTO invoices VALUES (34, 34, 18, 4, '2025-04-13', 43485.15, 33687.32, 250, 9547.83, 'Open');
INSERT INTO invoices VALUES (35, 35, 66, 5, '2025-09-06', 30205.76, 25572.19, 0, 4633.57, 'In collections');
INSERT INTO invoices VALUES (36, 36, 29, 3, '2025-02-13', 29218.36, 20624.36, 8594.0, 0.0, 'Paid');
INSERT INTO invoices VALUES (37, 37, 62, 4, '2025-06-23', 72486.01, 52649.31, 250, 19586.7, 'In collections');
INSERT INTO invoices VALUES (38, 38, 32, 7, '2025-07-20', 27632.34, 20545.43, 250, 6836.91, 'In collections');
INSERT INTO invoices VALUES (39, 39, 17, 1, '2025-10-07', 27916.44, 20062.6, 500, 7353.84, 'Payment plan');
INSERT INTO invoices VALUES (40, 40, 63, 1, '2025-11-15', 33824.55, 23656.7, 0, 10167.85, 'Open');
INSERT INTO invoices VALUES (41, 41, 9, 4, '2025-05-28', 54579.13, 38642.94, 500, 15436.19, 'Open');
INSERT INTO invoices VALUES (42, 42, 7, 8, '2025-06-18', 8238.1, 6243.41, 250, 1744.69, 'Open');
INSERT INTO invoices VALUES (43, 43, 50, 6, '2025-05-11', 22796.8, 14168.5, 1000, 7628.3, 'Open');
INSERT INTO invoices VALUES (44, 44, 27, 6, '2025-12-06', 20856.23, 15520.82, 250, 5085.41, 'Payment plan');
INSERT INTO invoices VALUES (45, 45, 51, 7, '2025-09-25', 26869.93, 24168.25, 250, 2451.68, 'In collections');
INSERT INTO invoices VALUES (46, 46, 65, 5, '2025-09-08', 8834.46, 5834.11, 250, 2750.35, 'Payment plan');
INSERT INTO invoices VALUES (47, 47, 51, 7, '2025-07-06', 31819.69, 28251.26, 0, 3568.43, 'Open');
INSERT INTO invoices VALUES (48, 48, 51, 7, '2025-11-12', 35618.81, 27368.41, 0, 8250.4, 'Open');
INSERT INTO invoices VALUES (49, 49, 39, 4, '2025-05-29', 16167.26, 14036.59, 1000, 1130.67, 'Payment plan');
INSERT INTO invoices VALUES (50, 50, 20, 4, '2025-05-01', 19942.75, 14819.6, 5123.15, 0.0, 'Paid');
INSERT INTO invoices VALUES (51, 51, 12, 7, '2025-11-24', 9001.7, 5573.21, 0, 3428.49, 'In collections');
INSERT INTO invoices VALUES (52, 52, 34, 4, '2025-11-26', 20606.62, 17143.5, 500, 2963.12, 'Open');
INSERT INTO invoices VALUES (53, 53, 70, 2, '2025-10-03', 21025.13, 16919.44, 500, 3605.69, 'In collections');
INSERT INTO invoices VALUES (54, 54, 18, 4, '2025-11-12', 28925.64, 24537.0, 1000, 3388.64, 'Payment plan');
INSERT INTO invoices VALUES (55, 55, 61, 4, '2025-07-19', 33879.89, 25111.8, 500, 8268.09, 'In collections');
INSERT INTO invoices VALUES (56, 56, 52, 7, '2025-08-30', 24955.87, 16586.86, 500, 7869.01, 'Payment plan');
INSERT INTO invoices VALUES (57, 57, 69, 5, '2025-05-11', 33849.95, 26505.31, 0, 7344.64, 'Payment plan');
INSERT INTO invoices VALUES (58, 58, 20, 4, '2025-08-31', 42293.1, 26738.79, 250, 15304.31, 'Open');
INSERT INTO invoices VALUES (59, 59, 37, 6, '2025-01-17', 26253.99, 19482.28, 500, 6271.71, 'In collections');
INSERT INTO invoices VALUES (60, 60, 56, 8, '2025-03-14', 38265.24, 26449.37, 1000, 10815.87, 'Open');
INSERT INTO invoices VALUES (61, 61, 58, 1, '2025-11-03', 32937.1, 27967.96, 0, 4969.14, 'In collections');
INSERT INTO invoices VALUES (62, 62, 31, 5, '2025-07-24', 9826.16, 8282.43, 0, 1543.73, 'Payment plan');
INSERT INTO invoices VALUES (63, 63, 52, 7, '2025-05-28', 31778.91, 20279.78, 0, 11499.13, 'In collections');
INSERT INTO invoices VALUES (64, 64, 32, 7, '2025-04-17', 35827.08, 27761.52, 250, 7815.56, 'In collections');
INSERT INTO invoices VALUES (65, 65, 27, 6, '2025-07-12', 24726.95, 18599.73, 250, 5877.22, 'Payment plan');
INSERT INTO invoices VALUES (66, 66, 17, 1, '2025-02-23', 37630.46, 25251.71, 250, 12128.75, 'Open');
INSERT INTO invoices VALUES (67, 67, 63, 1, '2025-09-23', 20800.11, 16691.68, 500, 3608.43, 'Open');
INSERT INTO invoices VALUES (68, 68, 68, 1, '2025-03-13', 17608.42, 13865.37, 0, 3743.05, 'Open');
INSERT INTO invoices VALUES (69, 69, 57, NULL, '2025-07-15', 27788.75, 0.0, 1000, 26788.75, 'Open');
INSERT INTO invoices VALUES (70, 70, 13, 2, '2025-09-25', 39221.54, 29885.35, 0, 9336.19, 'In collections');
INSERT INTO invoices VALUES (71, 71, 22, 7, '2025-03-08', 31244.84, 24191.0, 0, 7053.84, 'Open');
INSERT INTO invoices VALUES (72, 72, 43, 8, '2025-11-19', 48571.5, 36605.55, 500, 11465.95, 'Open');
INSERT INTO invoices VALUES (73, 73, 23, 4, '2025-06-01', 4440.2, 3804.96, 0, 635.24, 'Open');
INSERT INTO invoices VALUES (74, 74, 21, 8, '2025-08-09', 4953.31, 4168.34, 784.97, 0.0, 'Paid');
INSERT INTO invoices VALUES (75, 75, 67, 7, '2025-07-26', 19558.19, 15017.28, 0, 4540.91, 'Open');
INSERT INTO invoices VALUES (76, 76, 10, 5, '2025-09-18', 68649.61, 48101.65, 20547.96, 0.0, 'Paid');
INSERT INTO invoices VALUES (77, 77, 60, 6, '2025-03-13', 41489.9, 36950.28, 0, 4539.62, 'Payment plan');
INSERT INTO invoices VALUES (78, 78, 18, 4, '2025-05-05', 28078.55, 19454.45, 0, 8624.1, 'Payment plan');
INSERT INTO invoices VALUES (79, 79, 67, 7, '2025-03-07', 8841.45, 6659.67, 1000, 1181.78, 'Payment plan');
INSERT INTO invoices VALUES (80, 80, 60, 6, '2025-10-21', 26698.86, 18640.94, 0, 8057.92, 'Open');
INSERT INTO invoices VALUES (81, 81, 63, 1, '2025-05-05', 13691.43, 10670.75, 3020.68, 0.0, 'Paid');
INSERT INTO invoices VALUES (82, 82, 28, 4, '2025-07-14', 6845.23, 4353.13, 2492.1, -0.0, 'Paid');
INSERT INTO invoices VALUES (83, 83, 18, 4, '2025-06-03', 30075.35, 18722.16, 0, 11353.19, 'Open');
INSERT INTO invoices VALUES (84, 84, 5, 4, '2025-03-04', 56905.92, 38876.6, 250, 17779.32, 'In collections');
