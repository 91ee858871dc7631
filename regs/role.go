package regs

// Role is a controller's role: RoleHost or RoleDevice (RoleOTG only for a
// dual-role port whose current role is not known), held in USBMODE.CM
// (RoleOfCM, Role.CM). Its strings are profiles' TOML values and results
// files' JSON: they must not change. Decision: the one role type of the
// tree lives in the lowest package, as simmodel needs it and must not
// import soc (where soc.RoleOf makes the one role decision).
type Role string

// The roles. "" means unknown (QEMU: the registers do not tell).
const (
	RoleHost   Role = "host"
	RoleDevice Role = "device"
	// RoleOTG is a dual-role port whose current role is not known
	// (soc.ParamUser.Role only; never a profile value).
	RoleOTG Role = "otg"
)

// USBMODE.CM values.
const (
	cmDevice = 2
	cmHost   = 3
)

// Valid reports whether r is RoleHost or RoleDevice, the roles a
// profile may name.
func (r Role) Valid() bool { return r == RoleHost || r == RoleDevice }

// RoleOfCM is the role a USBMODE.CM value selects; ok is false for idle
// (0, also what QEMU reads) and the reserved value.
func RoleOfCM(cm uint32) (r Role, ok bool) {
	switch cm {
	case cmHost:
		return RoleHost, true
	case cmDevice:
		return RoleDevice, true
	}
	return "", false
}

// CM is the USBMODE.CM value that selects r; ok is false for a role
// that is not one (RoleOTG, "").
func (r Role) CM() (cm uint32, ok bool) {
	switch r {
	case RoleHost:
		return cmHost, true
	case RoleDevice:
		return cmDevice, true
	}
	return 0, false
}
