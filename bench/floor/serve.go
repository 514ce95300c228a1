//go:build !bench_likecustody

package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// serve is providerserver.Serve, the obvious way.
func serve() error {
	return providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{Address: address})
}
