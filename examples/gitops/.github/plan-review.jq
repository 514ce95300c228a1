# The access review of a plan, as a Markdown table for the pull request's
# job summary (.github/workflows/custody.yml, step "Access review"):
#
#   jq -Rrn -f .github/plan-review.jq plan.jsonl >>"$GITHUB_STEP_SUMMARY"
#
# plan.jsonl is the output of `terraform plan -json`: one JSON object per
# line (Terraform's machine-readable UI); a line that is not JSON is
# skipped. Of its diagnostics (type "diagnostic") it keeps those the custody
# provider writes for the reviewer, by their summary, in this order:
# "Control broken: <control>" (an error: the plan fails; a warning where
# the control's on_outside_breach says so, shown as such), "Control broken
# outside this configuration: <control>" (a warning: policies outside the
# configuration break the control, and custody_policies_exclusive's
# removals mend it), "Controls checked at apply: <policy>", "Access review
# not made", "Access change: <policy>" and "Policy finding: <policy>"
# (warnings). A warning "Control broken: <control>" is left out when the
# plan mends that control (it is the same breach, seen before the
# removals) or fails on it (an error "Control broken: <control>" says
# more). One row each, errors first within a kind, with the
# resource's address (diagnostic.address), the kind, the control or
# policy, and the detail's lines that say what changed (the "ACTIVITY_TYPE_...: OUTCOME_... ->
# OUTCOME_..." lines, or "ACTIVITY_TYPE_...: OUTCOME_..." for a control
# the organization breaks, each with the words under it; the policies
# that take part; "and N more" and how many requests or activity types
# were checked), or else its first three lines. The plan's comment on the
# pull request has every diagnostic in full.
#
# jq, not a program of its own: GitHub's hosted runners have jq (1.6 and
# later), so the kit stays HCL and a workflow, with nothing to build.

def kinds: ["Control broken", "Control broken outside this configuration", "Controls checked at apply", "Access review not made",
  "Access change", "Policy finding"];

# Text in a table cell: Markdown's special characters and the cell
# separator escaped.
def text: gsub("(?<c>[\\\\`*_\\[\\]<>|])"; "\\\(.c)");

# Code in a table cell: a code span; only the cell separator needs its
# backslash there (GitHub's tables split cells before reading code spans).
def code:
  gsub("\\|"; "\\|")
  | if test("`") then "`` " + . + " ``" else "`" + . + "`" end;

# A decision line: activity types, and the outcome a change turns into
# another, or the outcome by which the organization breaks a control.
def decision: "^ACTIVITY_TYPE_[A-Z0-9_]+(, ACTIVITY_TYPE_[A-Z0-9_]+)*: OUTCOME_[A-Z_]+( -> OUTCOME_[A-Z_]+)?$";

# A line that says how much was checked: "and N more", "Checked R
# requests over T activity types." or "Proved over every request of T
# activity types" (shown without the words that follow).
def coverage: "^(and [0-9]+ more|Checked [0-9]+ requests? over [0-9]+ activity types?\\.|Proved over every request of [0-9]+ activity types?)";

# The detail's lines that go into the table, trimmed, as {code, text}:
# each decision line (code) with the words under it (text), each policy
# that takes part in a broken control (a "- ..." line, without its dash),
# and the coverage lines; without decision lines, the first three lines.
def shown:
  [(.detail // "") | split("\n")[] | sub("^\\s+"; "") | sub("\\s+$"; "") | select(. != "")] as $lines
  | [range(0; $lines | length) as $i | $lines[$i] as $l
     | if ($l | test(decision)) then
         {code: $l, text: ($lines[$i + 1] // "" | select(test("^(ACTIVITY_TYPE_|request = |- |and [0-9]+ more|Checked |Proved |Each example|Policies )") | not))}
         // {code: $l, text: ""}
       elif ($l | test("^- \"")) then {code: "", text: ($l | ltrimstr("- "))}
       elif ($l | test(coverage)) then {code: "", text: (if ($l | startswith("Proved")) then ($l | match(coverage).string) + "." else $l end)}
       else empty end] as $rows
  | if any($rows[]; .code != "") then $rows
    else [$lines[:3][] | {code: "", text: .}] + (if ($lines | length) > 3 then [{code: "", text: "…"}] else [] end) end;

[inputs | fromjson? | select(type == "object" and .type == "diagnostic") | .diagnostic
  | select(type == "object" and (.summary | type) == "string")
  | . as $d
  | (.summary | capture("^(?<kind>[^:]+)(: (?<name>.*))?$")) as $s
  | select(kinds | index([$s.kind]))
  | {order: (kinds | index([$s.kind])), kind: $s.kind, name: ($s.name // ""), address: ($d.address // ""),
     severity: ($d.severity // "warning"), lines: ($d | shown)}]
| ([.[] | select(.kind == "Control broken outside this configuration" or (.kind == "Control broken" and .severity == "error")) | .name]) as $told
| [.[] | select(.kind != "Control broken" or .severity == "error" or (.name as $n | $told | index([$n]) | not))]
| unique_by([.address, .kind, .name, .lines])
| sort_by([.order, (if .severity == "error" then 0 else 1 end), .address, .name]) as $rows
| "### custody: access review of the plan\n",
  if ($rows | length) == 0 then
    "No access change, broken control or policy finding in this plan."
  else
    "| Resource | Kind | Control or policy | What changes |",
    "|---|---|---|---|",
    ($rows[] | "| \(if .address == "" then "–" else (.address | code) end) | \(.kind)\(if .severity == "error" then " (error)" elif .kind == "Control broken" then " (warning)" else "" end) | \(if .name == "" then "–" else (.name | text) end) | \([.lines[] | [(.code | select(. != "") | code), (.text | select(. != "") | text)] | join(" – ")] | join("<br>")) |"),
    "",
    "By kind: \([kinds[] as $k | [$rows[] | select(.kind == $k)] | length | select(. > 0) | "\($k) \(.)"] | join(", ")). The plan's comment on the pull request has each in full, with an example request that `provider::custody::policy_decision` accepts as is."
  end
