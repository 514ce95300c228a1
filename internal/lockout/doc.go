// Package lockout is the lockout guard's judgment, which needs no
// Terraform type: it reads the organization through a Reader of its own
// and gives plain-text findings, which the provider turns into
// diagnostics.
//
// The lockout guard keeps a plan from locking Terraform out of the
// organization's policies. Terraform usually runs as an API user whose
// policy changes a policy allows; a change that adds a deny on policy
// changes, or removes that allow, succeeds, and from then on every policy
// change the pipeline submits is denied, the one that would undo it
// included. Only the root quorum can recover.
//
// Terraform plans resources in parallel and applies independent ones in
// any order, and an apply that fails stops part way, where the next run
// starts. So the guard judges every state an apply of the planned changes
// can pass through or stop in, not the order it happens to see: on each
// activity type that manages policies, it decides the provider's own user
// (whoami, from the credentials check), acting alone, with the
// organization's policies as the command found them and each changed
// policy in whichever of its versions (before or after the change; a
// create's before and a delete's after are absent) allows the user less
// on that type, in the engine's order: explicit deny < not applicable,
// time-inactive, error or absent < consensus < allow. That worst state
// allows no more than the state in which any one change is submitted
// (every other change in either version, that one in its before version),
// nor than the state after the apply, for the runs after it. Judging only
// those would not do: the state after the changes planned so far can lock
// Terraform out and a change planned later put it right, and the verdict
// would depend on the order again. The worst state only gets worse as
// changes arrive, so the verdict is the same in every plan (it is the
// least strict judgment for which that holds); which resource carries the
// error is the one whose change tips it, and may vary. A refused change
// is not counted, so that it does not count against the others.
//
// A planned change whose content is not known until apply is named in a
// warning and left out (counted in its before version): Terraform plans
// it again during the apply, with its values, and the guard of the apply
// judges it then, before it is submitted.
//
// Deletes are the one change the plan may not see: a replacement (a
// `-replace`, a tainted object, an unresolved-create placeholder) reaches
// ModifyPlan only as its create, and the apply runs it as a delete and
// then that create. So the apply's guard counts, in the same worst way,
// every change the apply starts: a create or an update when Terraform
// plans it again just before making it (check), a delete just before it
// is submitted or joins a batch (allowDelete, which refuses it when it
// would lock Terraform out). A change counts in its worse version until it
// is made (applied), in its after version from then on; one that failed
// keeps counting in its worse version, since it may have been made. Two
// deletes that run at once are judged together, whichever comes second
// with the first counted as deleted. Every change of a plan that passed
// with its content known was judged in both its versions, so the apply
// refuses only what the plan could not see (a replacement's delete, a
// change of the organization since the plan).
//
// The guard reuses the command's one list_policies (cachedPolicies), and
// asks get_organization_configs only when it is about to report, to learn
// whether the user is a root user who acts through the root quorum.
package lockout
