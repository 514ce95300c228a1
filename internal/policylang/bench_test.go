package policylang

import "testing"

// typical is a condition of the kind the documentation's examples show.
const typical = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && " +
	"eth.tx.to in ['0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7', '0x576a4d741b96996cc93b4919a04c16545734481f'] && " +
	"eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.value <= 1000000000000000000"

// BenchmarkCompileTypical is parse + check of one typical expression, the
// work a plan does for each policy expression (target: under 50 µs).
func BenchmarkCompileTypical(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if p, _ := Compile(typical, FieldCondition); p == nil {
			b.Fatal("typical does not compile")
		}
	}
}

// BenchmarkCompileConsensus is a typical consensus expression.
func BenchmarkCompileConsensus(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Compile("approvers.filter(user, user.tags.contains('<USER_TAG_ID>')).count() >= 2", FieldConsensus)
	}
}

// BenchmarkEvalTypical evaluates the typical condition against a request.
func BenchmarkEvalTypical(b *testing.B) {
	p, _ := Compile(typical, FieldCondition)
	env := signingEnv()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Eval(env); err != nil {
			b.Fatal(err)
		}
	}
}
