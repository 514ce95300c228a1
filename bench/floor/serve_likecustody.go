//go:build bench_likecustody

package main

import custody "github.com/custody-labs/terraform-provider-custody/internal/provider"

// serve serves the floor the way the custody provider is served (unread
// SDK logs off, request contexts released), so that the shaped floor
// differs from custody only in what its resources do.
func serve() error { return custody.ServeFramework(address, newProvider, false) }
