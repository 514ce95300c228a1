package main

import (
	"context"
	"flag"
	"log"

	"github.com/custody-labs/terraform-provider-custody/internal/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// Render docs/ from the schema and templates/; the pinned Terraform is found on
// PATH, never downloaded (hence no --tf-version).
//go:generate go tool tfplugindocs generate -provider-name custody

// version is overwritten at release time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	// -debug lets a debugger attach: Terraform then reaches the provider
	// through TF_REATTACH_PROVIDERS instead of starting it itself.
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/custody-labs/custody",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
