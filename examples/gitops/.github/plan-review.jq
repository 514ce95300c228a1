# The access review of a plan, as a Markdown table for the pull request's
# job summary (.github/workflows/custody.yml, step "Access review"):
#
#   jq -Rrn -f .github/plan-review.jq plan.jsonl >>"$GITHUB_STEP_SUMMARY"
#
# plan.jsonl is the output of `terraform plan -json`: one JSON object per
# line (Terraform's machine-readable UI); a line that is not JSON is
# skipped. Of its diagnostics (type "diagnostic") it keeps those the custody
# provider writes for the reviewer, by their summary: "Control broken:
# <control>" (an error: the plan fails), "Control broken before this plan:
# <control>", "Controls checked at apply: <policy>", "Access review not
# made", "Access change: <policy>" and "Policy finding: <policy>"
# (warnings), in that order. One row each, with the resource's
# address (diagnostic.address), the kind, the control or policy, and the
# detail's lines that say what changed (the "ACTIVITY_TYPE_...: OUTCOME_...
# -> OUTCOME_..." lines and "and N more"), or else its first three lines.
# The plan's comment on the pull request has every diagnostic in full.
#
# jq, not a program of its own: GitHub's hosted runners have jq (1.6 and
# later), so the kit stays HCL and a workflow, with nothing to build.

def kinds: ["Control broken", "Control broken before this plan", "Controls checked at apply", "Access review not made",
  "Access change", "Policy finding"];

# Text in a table cell: Markdown's special characters and the cell
# separator escaped.
def text: gsub("(?<c>[\\\\`*_\\[\\]<>|])"; "\\\(.c)");

# Code in a table cell: a code span; only the cell separator needs its
# backslash there (GitHub's tables split cells before reading code spans).
def code:
  gsub("\\|"; "\\|")
  | if test("`") then "`` " + . + " ``" else "`" + . + "`" end;

def decision: "^ACTIVITY_TYPE_[A-Z0-9_]+: OUTCOME_[A-Z_]+ -> OUTCOME_[A-Z_]+$";

# The detail's lines that go into the table, trimmed, as {code, text}:
# each decision line (code) with the words under it (text), "and N more"
# and "Checked R requests over T activity types."; without decision lines,
# the first three lines.
def shown:
  [(.detail // "") | split("\n")[] | sub("^\\s+"; "") | sub("\\s+$"; "") | select(. != "")] as $lines
  | [range(0; $lines | length) as $i | $lines[$i] as $l
     | if ($l | test(decision)) then
         {code: $l, text: ($lines[$i + 1] // "" | select(test("^(ACTIVITY_TYPE_|request = |and [0-9]+ more|Checked |Each example)") | not))}
         // {code: $l, text: ""}
       elif ($l | test("^(and [0-9]+ more|Checked [0-9]+ requests? over [0-9]+ activity types?)")) then {code: "", text: $l}
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
| unique_by([.address, .kind, .name, .lines])
| sort_by([.order, .address, .name]) as $rows
| "### custody: access review of the plan\n",
  if ($rows | length) == 0 then
    "No access change, broken control or policy finding in this plan."
  else
    "| Resource | Kind | Control or policy | What changes |",
    "|---|---|---|---|",
    ($rows[] | "| \(if .address == "" then "–" else (.address | code) end) | \(.kind)\(if .severity == "error" then " (error)" else "" end) | \(if .name == "" then "–" else (.name | text) end) | \([.lines[] | [(.code | select(. != "") | code), (.text | select(. != "") | text)] | join(" – ")] | join("<br>")) |"),
    "",
    "By kind: \([kinds[] as $k | [$rows[] | select(.kind == $k)] | length | select(. > 0) | "\($k) \(.)"] | join(", ")). The plan's comment on the pull request has each in full, with an example request that `provider::custody::policy_decision` accepts as is."
  end
