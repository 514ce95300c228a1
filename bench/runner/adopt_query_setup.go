package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/testclis"
)

// Which CLI runs the adopt row's terraform query flow (issue 41), and the
// files it takes from the adopting guide. The terraform on PATH is
// usually older than 1.14, the first with `query`; the newer CLIs the
// project tests with are named by CUSTODY_TEST_CLIS, so the flow takes
// the first of them that has query. When none has, the flow does not run
// and the report says why: a row that silently lost half its figures
// would read as if the guide's second way had been measured.

// adoptGuide is the user guide whose commands the adopt row runs,
// relative to the module root.
const adoptGuide = "docs/guides/adopting-an-existing-organization.md"

// queryGuideSection is the heading of the guide's terraform query way.
const queryGuideSection = "## Terraform 1.14 and later: terraform query"

// queryGuideCommands are the guide's commands, which the flow runs (with
// the flags that running them unattended needs, see runAdoptQuery): a
// guide that says otherwise stops the runner rather than be left
// unproved.
const queryGuideCommands = `terraform query -generate-config-out=generated.tf
terraform plan -generate-config-out=generated_exclusive.tf
terraform apply
terraform plan -detailed-exitcode
`

// queryFlow is how the terraform query flow runs, or why it does not.
type queryFlow struct {
	cli        testclis.CLI // Path "": the flow does not run
	from       string       // where cli came from, for the report
	skip       string       // why the flow does not run
	listBlocks string       // the guide's .tfquery.hcl, as it is written there
	exclusive  string       // the guide's exclusive.tf: the exclusive resources' import blocks
}

// detectFunc tells which CLI a path is (testclis.Detect; tests fake it).
type detectFunc func(ctx context.Context, path string) (testclis.CLI, error)

// chooseQueryCLI picks the CLI of the query flow. flag is -query-cli:
// "none" leaves the flow out, a path must have query (it was asked for
// by name, so one that has not is an error). Without it, the first CLI
// of envList (CUSTODY_TEST_CLIS) that has query, then the terraform on
// PATH (onPath) if it has; a CLI that cannot be told apart is passed
// over, and said so in the reason when none is found.
func chooseQueryCLI(ctx context.Context, flag, envList, onPath string, detect detectFunc) (queryFlow, error) {
	switch flag {
	case "none":
		return queryFlow{skip: "-query-cli none"}, nil
	case "":
	default:
		cli, err := detect(ctx, flag)
		if err != nil {
			return queryFlow{}, fmt.Errorf("-query-cli: %w", err)
		}
		if ok, why := cli.Supports(testclis.Query); !ok {
			return queryFlow{}, fmt.Errorf("-query-cli %s: %s", flag, why)
		}
		return queryFlow{cli: cli, from: "-query-cli"}, nil
	}
	paths, err := testclis.Paths(envList)
	if err != nil {
		return queryFlow{}, err
	}
	var notes []string
	if len(paths) == 0 {
		notes = append(notes, testclis.Env+" names no CLI")
	}
	// from: where a candidate is, in the reasons; chosen: where the chosen one came from, in the report.
	type candidate struct{ path, from, chosen string }
	var cands []candidate
	for _, p := range paths {
		cands = append(cands, candidate{p, testclis.Env, "the first CLI of " + testclis.Env + " that has query"})
	}
	if onPath != "" && !slices.Contains(paths, onPath) {
		cands = append(cands, candidate{onPath, "the terraform on PATH", "the terraform on PATH, which has query (no CLI of " + testclis.Env + " has)"})
	}
	for _, c := range cands {
		cli, err := detect(ctx, c.path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s (%s) did not say its version: %v", c.path, c.from, firstLine(err.Error())))
			continue
		}
		if ok, _ := cli.Supports(testclis.Query); ok {
			return queryFlow{cli: cli, from: c.chosen}, nil
		}
		notes = append(notes, fmt.Sprintf("%s (%s) is %s", c.path, c.from, cli))
	}
	return queryFlow{skip: fmt.Sprintf("no CLI has terraform query (%s): %s; name one in %s or with -query-cli",
		testclis.Query.Needs(), strings.Join(notes, "; "), testclis.Env)}, nil
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

var fence = regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```")

// guideListBlocks is the .tfquery.hcl of the guide's terraform query
// section (its first hcl block) and its exclusive.tf (its terraform block
// of import blocks), after checking that the section's commands are
// queryGuideCommands.
func guideListBlocks(guide string) (listBlocks, exclusive string, err error) {
	_, section, ok := strings.Cut(guide, "\n"+queryGuideSection+"\n")
	if !ok {
		return "", "", fmt.Errorf("%s has no section %q", adoptGuide, queryGuideSection)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var hcl, tf, sh []string
	for _, m := range fence.FindAllStringSubmatch(section, -1) {
		switch m[1] {
		case "hcl":
			hcl = append(hcl, m[2])
		case "terraform":
			tf = append(tf, m[2])
		case "sh", "shell":
			sh = append(sh, m[2])
		}
	}
	if len(hcl) == 0 || !strings.Contains(hcl[0], "list \"") {
		return "", "", fmt.Errorf("%s, %q: no hcl block of list blocks", adoptGuide, queryGuideSection)
	}
	if len(tf) != 1 || !strings.Contains(tf[0], "to       = custody_policies_exclusive.") {
		return "", "", fmt.Errorf("%s, %q: no terraform block of the exclusive resources' import blocks", adoptGuide, queryGuideSection)
	}
	if len(sh) != 1 || sh[0] != queryGuideCommands {
		return "", "", fmt.Errorf("%s, %q: the commands are %q; the bench runs %q", adoptGuide, queryGuideSection, sh, queryGuideCommands)
	}
	return hcl[0], tf[0], nil
}

// prepareQuery sets o.query when the adopt row runs: the CLI, from
// -query-cli, CUSTODY_TEST_CLIS or PATH, and the guide's list blocks.
func prepareQuery(ctx context.Context, o *options, root, onPath string) error {
	if !o.adopt {
		return nil
	}
	q, err := chooseQueryCLI(ctx, o.queryCLI, os.Getenv(testclis.Env), onPath, testclis.Detect)
	if err != nil {
		return err
	}
	if q.cli.Path == "" {
		logf("adopt: the terraform query flow does not run: %s", q.skip)
		o.query = q
		return nil
	}
	b, err := os.ReadFile(filepath.Join(root, adoptGuide))
	if err != nil {
		return err
	}
	if q.listBlocks, q.exclusive, err = guideListBlocks(string(b)); err != nil {
		return err
	}
	logf("adopt: the terraform query flow runs %s (%s), %s", q.cli, q.cli.Path, q.from)
	o.query = q
	return nil
}
