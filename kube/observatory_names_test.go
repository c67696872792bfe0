// Tests of the names a reservation gives its objects: worked examples, the 63-character
// rule and its message, and the Job name formula computed independently of JobName.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestEachObjectIsNamedAfterItsResourceAndItsKindInLowercase(t *testing.T) {
	for _, tc := range []struct {
		kind obsv1.Kind
		name string
		want string
	}{
		{obsv1.KindMount, "east", "east-mount"},
		{obsv1.KindCamera, "east-main", "east-main-camera"},
		{obsv1.KindTelescope, "east", "east-telescope"},
		{obsv1.KindObservatory, "lab", "lab-observatory"},
		{obsv1.KindGuider, "east", "east-guider"},
		{obsv1.KindSkyQualityMeter, "lab", "lab-skyqualitymeter"},
	} {
		got, err := ValidObjectName(tc.kind, tc.name)
		if err != nil || got != tc.want || ObjectName(tc.kind, tc.name) != tc.want {
			t.Errorf("%s %s: got %q, %v; want %q", tc.kind, tc.name, got, err, tc.want)
		}
	}
	if got := ServerName(obsv1.KindTelescope, "east"); got != "east-telescope" {
		t.Errorf("the server of Telescope east is %q", got)
	}
	if got := ServerHost("east-telescope", "observatory"); got != "east-telescope.observatory.svc" {
		t.Errorf("the host of east-telescope is %q", got)
	}
}

func TestAFortyCharacterDeviceNameFitsEveryKind(t *testing.T) {
	name := strings.Repeat("d", 40)
	for _, k := range obsv1.Kinds {
		if !k.IsDevice() {
			continue
		}
		got, err := ValidObjectName(k, name)
		if err != nil {
			t.Errorf("%s: %v", k, err)
		}
		if len(got) > MaxObjectName || len(validation.IsDNS1035Label(got)) > 0 {
			t.Errorf("%s: %q is not a DNS-1035 label", k, got)
		}
	}
}

func TestANameOneCharacterTooLongIsRefusedWithTheLongestNameThatFits(t *testing.T) {
	for _, k := range append(obsv1.Kinds[:0:0], obsv1.Kinds...) {
		suffix := len(k) + 1
		longest := MaxObjectName - suffix
		if k == obsv1.KindObservatory {
			longest = 52 - suffix // a StatefulSet's name
		}
		if _, err := ValidObjectName(k, strings.Repeat("a", longest)); err != nil {
			t.Errorf("%s: a name of %d characters should fit: %v", k, longest, err)
		}
		_, err := ValidObjectName(k, strings.Repeat("a", longest+1))
		var ne *ObjectNameError
		if !errors.As(err, &ne) || ne.Max != longest {
			t.Errorf("%s: a name of %d characters gave %v, want an ObjectNameError with Max %d", k, longest+1, err, longest)
		}
	}
}

func TestTheLengthErrorSaysWhichNameToShortenAndToHowManyCharacters(t *testing.T) {
	name := "east-main-with-a-very-long-name-" + strings.Repeat("x", 31) // 63 characters
	_, err := ValidObjectName(obsv1.KindCamera, name)
	want := fmt.Sprintf("the Camera name %s gives the pod name %s-camera (70 characters); "+
		"shorten the name to at most 56 characters", name, name)
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestANameThatIsNoDNSLabelIsRefusedWithWhatToChange(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"1east", []string{"gives the pod name 1east-mount, which is not a DNS label", "starts with a lowercase letter"}},
		{"east.main", []string{"holds only lowercase letters, digits and '-'"}},
		{"9" + strings.Repeat("a", 60) + ".b", []string{"(69 characters); shorten the name to at most 57 characters, and rename it",
			"starts with a lowercase letter and holds only"}},
	} {
		_, err := ValidObjectName(obsv1.KindMount, tc.name)
		if err == nil {
			t.Errorf("%s was accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
}

// obsTJobHash computes the hash on its own, to check JobName against.
func obsTJobHash(kind, name, trigger string, since int64, index int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s\n%s\n%d\n%d", kind, name, trigger, since, index))
	return hex.EncodeToString(sum[:5])
}

func TestAJobIsNamedFromItsRunAsTheSpecSays(t *testing.T) {
	since := time.Date(2026, 3, 14, 21, 30, 5, 0, time.UTC)
	long := strings.Repeat("n", 32)
	for _, tc := range []struct {
		kind     obsv1.Kind
		name     string
		trigger  string
		index    int
		readable string
	}{
		// The example has this readable part; its hash comes from a since and index
		// the example does not give (none of 2017-2030's whole minutes with index 0-15 gives
		// a799431dd4), so the hash is checked against the formula instead.
		{obsv1.KindObservatory, "lab", "activation", 0, "observatory-lab-activation"},
		{obsv1.KindTelescope, "east", "triggers[2]", 1, "telescope-east-triggers-2"},
		{obsv1.KindCamera, "east.main", "deactivation", 3, "camera-east-main-deactivation"},
		{obsv1.KindWeatherStation, long, "triggers[15]", 15, ("weatherstation-" + long + "-triggers-15")[:52]},
		{obsv1.KindSkyQualityMeter, "a", "-.Triggers[0]..", 0, "skyqualitymeter-a-triggers-0"},
	} {
		got := JobName(tc.kind, tc.name, tc.trigger, since, tc.index)
		want := tc.readable + "-" + obsTJobHash(string(tc.kind), tc.name, tc.trigger, since.Unix(), tc.index)
		if got != want {
			t.Errorf("%s %s %s: got %s, want %s", tc.kind, tc.name, tc.trigger, got, want)
		}
		if len(got) > 63 || len(validation.IsDNS1123Subdomain(got)) > 0 {
			t.Errorf("%s is not a valid Job name of at most 63 characters", got)
		}
	}
}

func TestEachRunOfEachActionGetsItsOwnJobAndTheSameOneAgain(t *testing.T) {
	since := time.Unix(1767225600, 0)
	a := JobName(obsv1.KindDome, "lab", "activation", since, 0)
	if a != JobName(obsv1.KindDome, "lab", "activation", since, 0) {
		t.Error("the same run gave two names")
	}
	for _, other := range []string{
		JobName(obsv1.KindDome, "lab", "activation", since, 1),
		JobName(obsv1.KindDome, "lab", "activation", since.Add(time.Second), 0),
		JobName(obsv1.KindDome, "lab", "deactivation", since, 0),
		JobName(obsv1.KindMount, "lab", "activation", since, 0),
	} {
		if other == a {
			t.Errorf("%s is the name of two runs", a)
		}
	}
}
