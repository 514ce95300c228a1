// Package percommand holds the reads that the resources, data sources and
// machinery of one Terraform command share: a list fetched once per
// command (Lists) and a first read kept once it succeeds (FirstSuccess).
// Terraform configures the provider at the start of each command, so
// what they keep never outlives a plan or an apply. Neither keeps a
// failure: the next caller reads again.
package percommand
