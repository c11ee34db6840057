//go:build !nomysql

package mysql

// ProcessGrant is processGrant, for the tests.
var ProcessGrant = processGrant
