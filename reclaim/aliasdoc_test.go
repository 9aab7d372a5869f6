package reclaim_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherproc/tether/reclaim"
)

// Manager and Listener are aliases of types defined inside the module,
// whose fields go doc does not show; their doc comments list them. Each
// exported field is listed, and nothing that is not one: the list cannot
// drift from the type.
func TestAliasDocsListEveryField(t *testing.T) {
	for file, v := range map[string]any{"manager.go": reclaim.Manager{}, "listener.go": reclaim.Listener{}} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(v)
		name := typ.Name() // the alias and the type share it
		// The comment right above "type NAME =": its indented lines.
		end := strings.Index(string(src), "type "+name+" = ")
		if end < 0 {
			t.Fatalf("no alias %s in %s", name, file)
		}
		var listed []string
		lines := strings.Split(string(src[:end]), "\n")
		for i := len(lines) - 2; i >= 0 && strings.HasPrefix(lines[i], "//"); i-- {
			if m := regexp.MustCompile(`^//\t([A-Z]\w*(?:, [A-Z]\w*)*) `).FindStringSubmatch(lines[i]); m != nil {
				listed = append(listed, strings.Split(m[1], ", ")...)
			}
		}
		var fields []string
		for i := 0; i < typ.NumField(); i++ {
			if f := typ.Field(i); f.IsExported() {
				fields = append(fields, f.Name)
			}
		}
		for _, f := range fields {
			if !strings.Contains(" "+strings.Join(listed, " ")+" ", " "+f+" ") {
				t.Errorf("%s's doc does not list its field %s", name, f)
			}
		}
		for _, l := range listed {
			if _, ok := typ.FieldByName(l); !ok {
				t.Errorf("%s's doc lists %s, which is no field of it", name, l)
			}
		}
	}
}
