package coopmat

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// expectCoopMat fails the test when $APPRAISE_EXPECT_COOPMAT ("true" or
// "false") disagrees with whether the device offers
// VK_KHR_cooperative_matrix. CI sets it: false for Debian 12's lavapipe
// (Mesa 22.3), true under scripts/with-mesa-next (Mesa 26), so a run on
// the wrong driver fails instead of passing down the other branch.
func expectCoopMat(t *testing.T, d *vk.Device) {
	t.Helper()
	want := os.Getenv("APPRAISE_EXPECT_COOPMAT")
	if want == "" {
		return
	}
	w, err := strconv.ParseBool(want)
	if err != nil {
		t.Fatalf("APPRAISE_EXPECT_COOPMAT=%q: %v", want, err)
	}
	if has := d.Info.HasExtension(vk.ExtCoopMat); has != w {
		t.Fatalf("%s (%s %s): %s offered = %v, APPRAISE_EXPECT_COOPMAT=%v",
			d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, vk.ExtCoopMat, has, w)
	}
}

// TestMatrixEngineHonest: the matrix-engine flag is true only for a
// cooperative-matrix kernel that ran. On a device without
// VK_KHR_cooperative_matrix (Mesa 22.3's lavapipe) Run returns no result
// and an error wrapping ErrExtensionMissing, which the appraisal records
// as "matrix path unreachable", and the vector kernels that run beside it
// are vector-ALU figures. On a device with it, every shape reported is one the
// driver offers for the subgroup scope our kernels use, so the search has
// something to run (TestRunCoopMat runs it).
func TestMatrixEngineHonest(t *testing.T) {
	d := vktest.Device(t)
	expectCoopMat(t, d)
	if d.Info.HasExtension(vk.ExtCoopMat) {
		shapes, err := d.Shapes()
		if err != nil {
			t.Fatal(err)
		}
		if len(shapes) == 0 {
			t.Fatalf("%s offers %s but reports no shape", d.Info.Name, vk.ExtCoopMat)
		}
		for _, s := range shapes {
			t.Logf("%v: %v", s, supports(d, s))
		}
	} else {
		res, _, err := Run(context.Background(), d, smallOptions())
		if !errors.Is(err, vk.ErrExtensionMissing) || len(res) != 0 {
			t.Fatalf("Run without %s: %d results, err = %v; want none and ErrExtensionMissing", vk.ExtCoopMat, len(res), err)
		}
	}
}
