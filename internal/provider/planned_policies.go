package provider

import "sync"

// plannedPolicies are the custody_policy resources this command has
// refreshed or planned, by the id of their prior state: custody_policies_exclusive
// never plans the removal of a policy whose own resource deletes or
// replaces it, and refuses to remove one a resource keeps; the judgment of
// the organization calls them managed by this configuration. Terraform
// plans each policy that custody_policies_exclusive lists before it; one
// it does not list may be planned after it, and is not known then.
type plannedPolicies struct {
	mu  sync.Mutex
	ids map[string]plannedFate
}

// plannedFate is what a plan does to a managed policy's object.
type plannedFate int

const (
	fateKept     plannedFate = iota + 1 // updated or left as it is
	fateReplaced                        // deleted and made again with a new id
	fateDeleted
	// fateRefreshed: a custody_policy read it, and has not planned it
	// yet; one that Terraform then plans as a create (a tainted policy)
	// keeps this fate, and its old object is its own to replace.
	fateRefreshed
)

func (p *plannedPolicies) record(id string, fate plannedFate) {
	if id == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]plannedFate{}
	}
	p.ids[id] = fate
}

// fate is what this command planned for the policy id, 0 when no
// custody_policy planned it.
func (p *plannedPolicies) fate(id string) plannedFate {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[id]
}
