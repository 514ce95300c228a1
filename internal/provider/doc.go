// Package provider implements the Terraform provider for the custody service.
//
// It decides nothing itself: policies are decided by package policyset,
// whose words (outcome, verdict, decision, consensus, approval) it keeps,
// and it talks to the service only through package client, whose typed
// errors it reports (LostAnswerError, ConsensusNeededError).
//
// The machinery that needs no Terraform types lives in packages of its
// own, which never import this one: package submit sends activities and
// gathers batches, package lockout judges planned policy changes, package
// importblocks names and renders import blocks, and package percommand
// holds the reads one command shares. This package is the glue: schemas,
// CRUD methods, and turning what those packages find into diagnostics.
package provider
