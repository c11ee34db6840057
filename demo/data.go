package demo

import (
	"fmt"
	"strings"
)

// Fixed word lists and the course catalog the generator draws from.

var (
	firstNames = strings.Fields(`Olivia Liam Emma Noah Ava Mateo Sophia Elijah Isabella Lucas Mia Ethan
		Camila Aiden Harper Diego Amelia Jayden Evelyn Leo Luna Daniel Aaliyah Gabriel Chloe Wei Priya
		Samuel Zoe Jamal Nora Carlos Hannah Minh Grace Omar Ximena Caleb Fatima Julian Ruby Andre`)
	lastNames = strings.Fields(`Smith Garcia Johnson Nguyen Martinez Brown Lopez Williams Hernandez Lee
		Davis Gonzalez Wilson Kim Anderson Rodriguez Thomas Patel Jackson Perez White Chen Harris Sanchez
		Clark Ramirez Lewis Tran Walker Robinson Young Flores Allen Rivera King Wright Scott Torres Green Baker`)
	schoolWords = strings.Fields(`Lincoln Washington Jefferson Roosevelt Franklin Riverside Hillcrest Sunset
		Maple Oakwood Cedar Pinecrest Lakeview Meadowbrook Valley Westwood Eastside Northgate Harbor Summit
		Greenfield Kennedy Madison Parkside Willow`)
	cities    = []string{"Riverbend", "Riverbend", "Riverbend", "Maple Grove", "Cedar Falls", "Oak Hollow", "Fairview"}
	streets   = strings.Fields("Main Oak Elm Park Mission Grand Union Orchard Canyon Vista")
	languages = []string{"English", "English", "English", "English", "English", "English", "Spanish", "Spanish", "Vietnamese", "Mandarin", "Tagalog", "Arabic"}
)

type course struct {
	code, title, subject string
	lo, hi               int
}

// courseList is the catalog: code, title, subject, grade range.
var courseList = func() []course {
	var cs []course
	for _, line := range strings.Split(strings.TrimSpace(`
EM-K2|Math K-2|Math|0|2
EM-35|Math 3-5|Math|3|5
ER-K2|Reading K-2|English|0|2
ER-35|Reading and Writing 3-5|English|3|5
ES-K5|Science K-5|Science|0|5
EA-K5|Art K-5|Arts|0|5
EU-K5|Music K-5|Arts|0|5
EP-K5|Physical Education K-5|Physical Education|0|5
MM-6|Math 6|Math|6|6
MM-7|Math 7|Math|7|7
MM-PA|Pre-Algebra|Math|7|8
ME-6|English 6|English|6|6
ME-7|English 7|English|7|7
ME-8|English 8|English|8|8
MS-LS|Life Science|Science|6|7
MS-PS|Physical Science|Science|7|8
MH-WC|World Cultures|Social Studies|6|7
MH-US|U.S. History 8|Social Studies|8|8
ML-SP1|Spanish I (Middle School)|World Languages|7|8
MA-BND|Band|Arts|6|8
MP-PE|Physical Education 6-8|Physical Education|6|8
HM-ALG1|Algebra I|Math|9|10
HM-GEO|Geometry|Math|9|11
HM-ALG2|Algebra II|Math|10|12
HM-PREC|Pre-Calculus|Math|11|12
HM-APCA|AP Calculus AB|Math|11|12
HE-9|English 9|English|9|9
HE-10|English 10|English|10|10
HE-11|English 11|English|11|11
HE-APLT|AP English Literature|English|12|12
HS-BIO|Biology|Science|9|10
HS-CHEM|Chemistry|Science|10|12
HS-PHYS|Physics|Science|11|12
HS-APBI|AP Biology|Science|11|12
HH-WH|World History|Social Studies|10|10
HH-US|U.S. History|Social Studies|11|11
HH-GOV|Government|Social Studies|12|12
HH-ECON|Economics|Social Studies|12|12
HL-SP1|Spanish I|World Languages|9|12
HL-SP2|Spanish II|World Languages|10|12
HL-FR1|French I|World Languages|9|12
HA-ART|Studio Art|Arts|9|12
HA-CHR|Choir|Arts|9|12
HP-PE|Physical Education 9-12|Physical Education|9|10
HC-CSP|AP Computer Science Principles|Computer Science|10|12
HX-HLTH|Health|Health|9|9`), "\n") {
		f := strings.Split(line, "|")
		var lo, hi int
		fmt.Sscan(f[3], &lo)
		fmt.Sscan(f[4], &hi)
		cs = append(cs, course{f[0], f[1], f[2], lo, hi})
	}
	return cs
}()
