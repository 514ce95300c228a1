package main

import (
	"flag"
	"log"

	"github.com/custody-labs/terraform-provider-custody/internal/provider"
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

	if err := provider.Serve(version, debug); err != nil {
		log.Fatal(err.Error())
	}
}
