// Which image holds a device's driver. A device may name its image; otherwise the runner
// picks one: a vendor image for drivers built on a vendor's SDK, indi-simulators for the
// simulators, or indi for the core drivers that Debian's indi-bin ships. A driver none of
// these holds is refused before a pod is made, with a message that says to set
// spec.driver.image, rather than left to fail in a pod that cannot find it. The runner's own
// images may live in another registry than the release's (the worker's --image-registry).
package kube

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The runner's driver images besides ServerImage, which also holds the core drivers.
const (
	// SimulatorImage holds indi_simulator_*, the drivers that need no hardware.
	SimulatorImage = ImageRegistry + "indi-simulators:" + INDIImageTag
	// ZWOImage holds the drivers built on ZWO's ASI SDK (indi-3rdparty's indi-asi).
	ZWOImage = ImageRegistry + "indi-zwo:" + INDIImageTag
	// QHYImage holds the drivers built on QHYCCD's SDK (indi-3rdparty's indi-qhy).
	QHYImage = ImageRegistry + "indi-qhy:" + INDIImageTag
	// OpenImage holds common indi-3rdparty drivers that need only open-source libraries:
	// indi-eqmod (with the AZ-GTi and Star Adventurer drivers), indi-gphoto (libgphoto2),
	// indi-gpsd and indi-aagcloudwatcher-ng, as Debian builds them.
	OpenImage = ImageRegistry + "indi-open:" + INDIImageTag
)

// vendorImages maps each driver of the vendor images to its image. It names drivers one by
// one, not by prefix, so a new driver of a vendor is refused until an image is known to hold
// it; and indi_qhycfw*_wheel, which is in indi-bin, stays on the core image.
var vendorImages = map[string]string{
	"indi_asi_ccd":     ZWOImage,
	"indi_asi_focuser": ZWOImage,
	"indi_asi_st4":     ZWOImage,
	"indi_asi_wheel":   ZWOImage,

	"indi_qhy_ccd":     QHYImage,
	"indi_qhy_focuser": QHYImage,

	"indi_aagcloudwatcher_ng":         OpenImage,
	"indi_ahpgt_telescope":            OpenImage,
	"indi_azgti_telescope":            OpenImage,
	"indi_canon_ccd":                  OpenImage,
	"indi_eqmod_telescope":            OpenImage,
	"indi_fuji_ccd":                   OpenImage,
	"indi_gphoto_ccd":                 OpenImage,
	"indi_gpsd":                       OpenImage,
	"indi_nikon_ccd":                  OpenImage,
	"indi_pentax_ccd":                 OpenImage,
	"indi_skyadventurergti_telescope": OpenImage,
	"indi_sony_ccd":                   OpenImage,
	"indi_staradventurer2i_telescope": OpenImage,
}

// coreDrivers are the drivers in ServerImage: every /usr/bin/indi_* of Debian's indi-bin
// 1.9.9, less the simulators (in SimulatorImage) and the command-line tools indi_getprop,
// indi_setprop, indi_eval and indi_hid_test. Sorted, for a binary search.
var coreDrivers = []string{
	"indi_Excalibur", "indi_aaf2_focus", "indi_activefocuser_focus", "indi_arduinost4",
	"indi_astromech_lpm", "indi_astrometry", "indi_astrotrac_telescope", "indi_baader_dome",
	"indi_celestron_gps", "indi_celestron_sct_focus", "indi_crux_mount", "indi_ddw_dome",
	"indi_deepskydad_af1_focus", "indi_deepskydad_af2_focus", "indi_deepskydad_af3_focus",
	"indi_deepskydad_fp1", "indi_deepskydad_fr1", "indi_dmfc_focus", "indi_domepro2_dome",
	"indi_dsc_telescope", "indi_efa_focus", "indi_eq500x_telescope", "indi_esattoarco_focus",
	"indi_falcon_rotator", "indi_fcusb_focus", "indi_flipflat", "indi_gemini_focus",
	"indi_gpusb", "indi_hitecastrodc_focus", "indi_ieq_telescope", "indi_ieqlegacy_telescope",
	"indi_imager_agent", "indi_integra_focus", "indi_ioptronHC8406",
	"indi_ioptronv3_telescope", "indi_joystick", "indi_lacerta_mfoc_focus",
	"indi_lakeside_focus", "indi_lx200_10micron", "indi_lx200_16", "indi_lx200_OnStep",
	"indi_lx200_OpenAstroTech", "indi_lx200_TeenAstro", "indi_lx200am5", "indi_lx200ap",
	"indi_lx200ap_gtocp2", "indi_lx200ap_v2", "indi_lx200autostar", "indi_lx200basic",
	"indi_lx200classic", "indi_lx200fs2", "indi_lx200gemini", "indi_lx200generic",
	"indi_lx200gotonova", "indi_lx200gps", "indi_lx200pulsar2", "indi_lx200ss2000pc",
	"indi_lx200zeq25", "indi_lynx_focus", "indi_manual_wheel", "indi_mbox_weather",
	"indi_meta_weather", "indi_microtouch_focus", "indi_moonlite_focus",
	"indi_moonlitedro_focus", "indi_myfocuserpro2_focus", "indi_nexdome_beaver", "indi_nfocus",
	"indi_nframe_rotator", "indi_nightcrawler_focus", "indi_nstep_focus", "indi_onfocus_focus",
	"indi_openweathermap_weather", "indi_optec_wheel", "indi_paramount_telescope",
	"indi_pegasus_flatmaster", "indi_pegasus_focuscube", "indi_pegasus_ppb",
	"indi_pegasus_ppba", "indi_pegasus_prodigyMF", "indi_pegasus_scopsoag", "indi_pegasus_uch",
	"indi_pegasus_upb", "indi_perfectstar_focus", "indi_planewave_deltat",
	"indi_pmc8_telescope", "indi_pyxis_rotator", "indi_qhycfw1_wheel", "indi_qhycfw2_wheel",
	"indi_qhycfw3_wheel", "indi_quantum_wheel", "indi_rainbow_telescope",
	"indi_rainbowrsf_focus", "indi_rbfocus_focus", "indi_rigel_dome", "indi_robo_focus",
	"indi_rolloff_dome", "indi_scopedome_dome", "indi_script_dome", "indi_script_telescope",
	"indi_sestosenso2_focus", "indi_sestosenso_focus", "indi_siefs_focus",
	"indi_skycommander_telescope", "indi_skysafari", "indi_skywatcherAltAzMount",
	"indi_smartfocus_focus", "indi_snapcap", "indi_sqm_weather", "indi_star2000",
	"indi_steeldrive2_focus", "indi_steeldrive_focus", "indi_synscan_telescope",
	"indi_synscanlegacy_telescope", "indi_tcfs3_focus", "indi_tcfs_focus",
	"indi_teenastro_focus", "indi_temma_telescope", "indi_trutech_wheel",
	"indi_uranus_weather", "indi_usbdewpoint", "indi_usbfocusv3_focus", "indi_v4l2_ccd",
	"indi_vantage_weather", "indi_wanderer_cover", "indi_wanderer_lite_rotator",
	"indi_watchdog", "indi_watcher_weather", "indi_weather_safety_proxy", "indi_xagyl_wheel",
}

// CoreDrivers are the drivers ServerImage holds, for the program that builds it.
func CoreDrivers() []string { return slices.Clone(coreDrivers) }

// OpenDrivers are the drivers OpenImage holds, sorted, for the program that builds it.
func OpenDrivers() []string {
	var out []string
	for d, img := range vendorImages {
		if img == OpenImage {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

const obsSimulatorPrefix = "indi_simulator_"

// obsDriverPattern is the CRD's rule for a driver name. It is checked again here because the
// name becomes part of socat's address, where a ',' or ':' would change what socat runs.
var obsDriverPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// DriverImage is the image a device's driver runs from: driver.image, else a vendor image
// that holds the driver, else indi-simulators for indi_simulator_*, else indi for a core
// driver. A driver none of them holds is an error that says to set spec.driver.image.
func DriverImage(d obsv1.Driver) (string, error) {
	if !obsDriverPattern.MatchString(d.Name) {
		return "", fmt.Errorf("the driver name %q is not a program name: use letters, digits and _ . + - only", d.Name)
	}
	switch {
	case d.Image != "":
		return d.Image, nil
	case vendorImages[d.Name] != "":
		return vendorImages[d.Name], nil
	case strings.HasPrefix(d.Name, obsSimulatorPrefix):
		return SimulatorImage, nil
	}
	if _, ok := slices.BinarySearch(coreDrivers, d.Name); ok {
		return ServerImage, nil
	}
	return "", fmt.Errorf("no image of the runner holds the driver %s; set spec.driver.image to an image that has it on its PATH", d.Name)
}

// InRegistry is pod with the runner's own images (those under ImageRegistry) pulled from
// registry instead, such as the one `make images` pushed them to; images a device names
// itself are left alone. The spec digest is written again, so a change of registry rolls
// the pods. An empty registry, or ImageRegistry itself, leaves pod as it is.
func InRegistry(pod *corev1.Pod, registry string) *corev1.Pod {
	to := strings.TrimSuffix(registry, "/") + "/"
	if registry == "" || to == ImageRegistry {
		return pod
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if rest, ok := strings.CutPrefix(cs[i].Image, ImageRegistry); ok {
				cs[i].Image = to + rest
			}
		}
	}
	return obsSeal(pod)
}
