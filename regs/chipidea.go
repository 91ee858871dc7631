package regs

import "fmt"

// Sources (see ../shared/reference/chipidea.md in the project's steering
// notes for the full citations):
//   [SDK]  Freescale i.MX6 Platform SDK register headers (regsusbcore.h):
//          reset values, access kinds and field descriptions.
//   [LNX]  Linux drivers/usb/chipidea/bits.h, ci.h, core.c and
//          include/linux/usb/ehci_def.h: the masks the driver uses.
// Offsets are from the controller base with the i.MX glue's capoffset
// 0x100 and CAPLENGTH 0x40 (non-LPM map, HCCPARAMS bit 17 = 0).

func bits(name string, msb, lsb uint, acc Access, desc string) Field {
	return Field{Name: name, Lsb: lsb, Width: msb - lsb + 1, Access: acc, Desc: desc}
}

func bit(name string, n uint, acc Access, desc string) Field {
	return bits(name, n, n, acc, desc)
}

func knob(f Field) Field { f.Knob = true; return f }

func strict(f Field, vs ...Enum) Field { f.Values, f.Strict = vs, true; return f }

func named(f Field, vs ...Enum) Field { f.Values = vs; return f }

func reg(off uint32, name string, reset uint32, desc string, fs ...Field) Register {
	return Register{Name: name, Offset: off, Reset: reset, ResetKnown: true, Desc: desc, Fields: fs}
}

// itcValues are the legal USBCMD.ITC values [SDK] with the time each
// means at 125 µs per micro-frame.
var itcValues = []Enum{
	{0, "IMMEDIATE", "interrupt at once (0 us)", false},
	{1, "UF1", "1 micro-frame (125 us)", false},
	{2, "UF2", "2 micro-frames (250 us)", false},
	{4, "UF4", "4 micro-frames (500 us)", false},
	{8, "UF8", "8 micro-frames (1 ms)", false},
	{16, "UF16", "16 micro-frames (2 ms)", false},
	{32, "UF32", "32 micro-frames (4 ms)", false},
	{64, "UF64", "64 micro-frames (8 ms)", false},
}

// ahbbrstValues are the SBUSCFG.AHBBRST encodings [SDK].
var ahbbrstValues = []Enum{
	{0, "INCR", "incremental burst of unspecified length only; BURSTSIZE sets the length", false},
	{1, "INCR4", "INCR4 bursts, then single transfers", false},
	{2, "INCR8", "INCR8, INCR4, then single transfers", false},
	{3, "INCR16", "INCR16, INCR8, INCR4, then single transfers", false},
	{4, "RESERVED4", "reserved, do not use", true},
	{5, "INCR4_INCR", "INCR4, then unspecified-length INCR", false},
	{6, "INCR8_INCR", "INCR8, INCR4, then unspecified-length INCR", false},
	{7, "INCR16_INCR", "INCR16, INCR8, INCR4, then unspecified-length INCR", false},
}

const (
	// Notes are one line each (dump prints them under the register); the
	// profiles' knob "driver" texts say the same at length, per SoC.
	noteUSBCMD = "host role: ehci-hcd rewrites ITC and park from its cached USBCMD"
	noteBurst  = "Linux rewrites it from the DT burst properties at every reset"
	noteSDIS   = "Linux sets SDIS at every reset from SoC glue flags (no DT property)"
)

// ChipIdea returns a fresh copy of the ChipIdea controller map as found on
// i.MX6 (offsets 0x000-0x1DC of one controller window). Reset values are
// [SDK] mx6dq; where [SDK] contradicts itself or is silent the description
// says so and ResetKnown may be false.
func ChipIdea() *Map {
	m := &Map{Name: "chipidea", Registers: []Register{
		readOnly(reg(0x000, "ID", 0xE401FA05,
			"Identification. The two sources disagree on bits 31:16: [SDK] REVISION[23:16], reserved[31:24]; Linux TAG[20:16], REVISION[24:21], VERSION[28:25], CIVERSION[31:29] (VERSION 2 => revision 2x). Shown raw as REV.",
			bits("ID", 5, 0, RO, "configuration number (0x05 on i.MX6)"),
			bits("NID", 13, 8, RO, "ones' complement of ID; ID == ^NID & 0x3f identifies a ChipIdea core"),
			bits("REV", 31, 16, RO, "revision bits, raw (sources disagree on the layout)"),
		)),
		readOnly(reg(0x004, "HWGENERAL", 0x00000015, "General hardware parameters.",
			bits("PHYW", 5, 4, RO, "PHY data width"),
			bits("PHYM", 8, 6, RO, "transceiver type"),
			bits("SM", 10, 9, RO, "serial mode"),
		)),
		readOnly(reg(0x008, "HWHOST", 0x10020001, "Host hardware parameters.",
			bit("HC", 0, RO, "host capable"),
			bits("NPORT", 3, 1, RO, "number of ports minus one"),
		)),
		deviceOnly(readOnly(reg(0x00C, "HWDEVICE", 0x00000011, "Device hardware parameters ([SDK]: present on the OTG core only).",
			bit("DC", 0, RO, "device capable"),
			bits("DEVEP", 5, 1, RO, "number of device endpoints"),
		))),
		readOnly(reg(0x010, "HWTXBUF", 0x80080B08, "TX buffer hardware parameters.",
			bits("TXBURST", 7, 0, RO, "default of BURSTSIZE.TXPBURST"),
			bits("TXCHANADD", 23, 16, RO, "TX FIFO size, 2^n x 4 bytes"),
		)),
		readOnly(reg(0x014, "HWRXBUF", 0x00000808, "RX buffer hardware parameters.",
			bits("RXBURST", 7, 0, RO, "default of BURSTSIZE.RXPBURST"),
			bits("RXADD", 15, 8, RO, "RX buffer address width"),
		)),
		reg(0x080, "GPTIMER0LD", 0, "General-purpose timer 0 load value (unused by Linux)."),
		reg(0x084, "GPTIMER0CTRL", 0, "General-purpose timer 0 control (unused by Linux)."),
		reg(0x088, "GPTIMER1LD", 0, "General-purpose timer 1 load value (unused by Linux)."),
		reg(0x08C, "GPTIMER1CTRL", 0, "General-purpose timer 1 control (unused by Linux)."),
		withNote(reg(0x090, "SBUSCFG", 0x00000002, "System bus (AHB master) configuration. [SDK]: overrides BURSTSIZE when AHBBRST is not zero.",
			knob(strict(bits("AHBBRST", 2, 0, RW, "AHB master burst sequence"), ahbbrstValues...)),
		), noteBurst),
		readOnly(reg(0x100, "CAPLENGTH", 0x01000040, "CAPLENGTH (8-bit) and HCIVERSION (16-bit at 0x102), read as one word.",
			bits("CAPLENGTH", 7, 0, RO, "offset of the operational registers from 0x100"),
			bits("HCIVERSION", 31, 16, RO, "EHCI interface version (BCD)"),
		)),
		readOnly(reg(0x104, "HCSPARAMS", 0x00010011, "Host controller structural parameters.",
			bits("N_PORTS", 3, 0, RO, "number of ports"),
			bit("PPC", 4, RO, "port power control"),
			bits("N_PCC", 11, 8, RO, "ports per companion controller"),
			bits("N_CC", 15, 12, RO, "companion controllers"),
			bit("PI", 16, RO, "port indicators"),
			bits("N_PTT", 23, 20, RO, "ports per transaction translator"),
			bits("N_TT", 27, 24, RO, "transaction translators"),
		)),
		readOnly(reg(0x108, "HCCPARAMS", 0x00000006, "Host controller capability parameters.",
			bit("ADC", 0, RO, "64-bit addressing"),
			bit("PFL", 1, RO, "programmable frame list"),
			bit("CANPARK", 2, RO, "asynchronous schedule park capable ([SDK] name ASP; Linux HCC_CANPARK)"),
			bits("IST", 7, 4, RO, "isochronous scheduling threshold"),
			bits("EECP", 15, 8, RO, "EHCI extended capabilities pointer"),
			bit("LPM", 17, RO, "link power management map (Linux HCCPARAMS_LEN; reserved in [SDK])"),
		)),
		deviceOnly(readOnly(reg(0x120, "DCIVERSION", 0x00000001, "Device controller interface version (16-bit).",
			bits("DCIVERSION", 15, 0, RO, "device interface version (BCD)"),
		))),
		hostReset(readOnly(reg(0x124, "DCCPARAMS", 0x00000188, "Device controller capability parameters.",
			bits("DEN", 4, 0, RO, "device endpoints"),
			bit("DC", 7, RO, "device capable"),
			bit("HC", 8, RO, "host capable"),
		)), 0x00000100, srcHostDCCPARAMS),
		withNote(reg(0x140, "USBCMD", 0x00080000, "USB command. [SDK] gives reset 0x00080000 for every core although its ASP/ASPE text says park defaults to 3/enabled on host-only cores: the ASP/ASPE reset values are unverified.",
			bit("RS", 0, RW, "run/stop"),
			neverSet(bit("RST", 1, SC, "controller reset; citune never sets it")),
			bits("FS", 3, 2, RW, "frame list size, low bits (FS_1)"),
			bit("PSE", 4, RW, "periodic schedule enable"),
			bit("ASE", 5, RW, "asynchronous schedule enable"),
			bit("IAA", 6, SC, "interrupt on async advance doorbell"),
			knob(rangeOf(bits("ASP", 9, 8, RW, "asynchronous schedule park mode count: back-to-back async packets (host)"), 0, 3)),
			knob(bit("ASPE", 11, RW, "asynchronous schedule park mode enable (host)")),
			bit("SUTW", 13, RW, "setup tripwire (device)"),
			bit("ATDTW", 14, RW, "add dTD tripwire (device)"),
			bit("FS2", 15, RW, "frame list size, high bit (FS_2)"),
			knob(strict(bits("ITC", 23, 16, RW, "interrupt threshold control: the longest the controller waits before raising an interrupt"), itcValues...)),
		), noteUSBCMD),
		w1c(reg(0x144, "USBSTS", 0, "USB status. Interrupt bits are write-1-to-clear; citune never writes a 1 here unless asked.",
			bit("UI", 0, W1C, "USB interrupt (transfer completion)"),
			bit("UEI", 1, W1C, "USB error interrupt"),
			bit("PCI", 2, W1C, "port change detect"),
			bit("FRI", 3, W1C, "frame list rollover"),
			bit("SEI", 4, W1C, "system error"),
			bit("AAI", 5, W1C, "interrupt on async advance"),
			bit("URI", 6, W1C, "USB reset received (device)"),
			bit("SRI", 7, W1C, "SOF received"),
			bit("SLI", 8, W1C, "device controller suspend"),
			bit("ULPII", 10, W1C, "ULPI viewport transaction complete"),
			bit("HCH", 12, RO, "host controller halted"),
			bit("RCL", 13, RO, "reclamation"),
			bit("PS", 14, RO, "periodic schedule status"),
			bit("AS", 15, RO, "asynchronous schedule status"),
			bit("NAKI", 16, RO, "NAK interrupt (device): set while an ENDPTNAK bit and its enable are both set; clears with them"),
			bit("TI0", 24, W1C, "general-purpose timer 0 interrupt"),
			bit("TI1", 25, W1C, "general-purpose timer 1 interrupt"),
		)),
		reg(0x148, "USBINTR", 0, "USB interrupt enable.",
			bit("UE", 0, RW, "USB interrupt enable"),
			bit("UEE", 1, RW, "USB error interrupt enable"),
			bit("PCE", 2, RW, "port change interrupt enable"),
			bit("FRE", 3, RW, "frame list rollover interrupt enable"),
			bit("SEE", 4, RW, "system error interrupt enable"),
			bit("AAE", 5, RW, "async advance interrupt enable"),
			bit("URE", 6, RW, "USB reset interrupt enable (device)"),
			bit("SRE", 7, RW, "SOF received interrupt enable"),
			bit("SLE", 8, RW, "sleep interrupt enable (device)"),
			bit("ULPIE", 10, RW, "ULPI viewport interrupt enable"),
			bit("NAKE", 16, RW, "NAK interrupt enable (device)"),
			bit("UAIE", 18, RW, "USB host asynchronous interrupt enable"),
			bit("UPIE", 19, RW, "USB host periodic interrupt enable"),
			bit("TIE0", 24, RW, "general-purpose timer 0 interrupt enable"),
			bit("TIE1", 25, RW, "general-purpose timer 1 interrupt enable"),
		),
		reg(0x14C, "FRINDEX", 0, "Frame index.",
			bits("FRINDEX", 13, 0, RW, "frame index (micro-frames)"),
		),
		hostAs(deviceOnly(reg(0x154, "DEVICEADDR", 0, "PERIODICLISTBASE in host role (bits 31:12); device address in device role.",
			bit("USBADRA", 24, RW, "device address advance (device)"),
			bits("USBADR", 31, 25, RW, "device address (device)"),
		)), "PERIODICLISTBASE", "Periodic frame list base address (host-only core: no device address here).",
			bits("BASEADR", 31, 12, RW, "frame list base address (4 KiB aligned)"),
		),
		hostAs(reg(0x158, "ASYNCLISTADDR", 0, "ASYNCLISTADDR in host role; ENDPOINTLISTADDR in device role. Raw."),
			"ASYNCLISTADDR", "Next asynchronous list address (host-only core: no ENDPOINTLISTADDR). Raw."),
		reg(0x15C, "TTCTRL", 0, "Embedded transaction translator control. Not in [SDK]; layout from Linux bits.h; TTHA resets to 0 (binding chipidea,usb2-common.yaml).",
			knob(bits("TTHA", 30, 24, RW, "internal TT hub address (non-zero-ttctrl-ttha sets 0x7f)")),
		),
		withNote(reg(0x160, "BURSTSIZE", 0x00000000, "Programmable burst size, in 32-bit words. Effective only while SBUSCFG.AHBBRST is 0. [SDK] gives TXPBURST as 9 bits (16:8), Linux as 8 bits (15:8): bit 16 is left undecoded and shown raw if set. [SDK] reset 0 contradicts its own note that the defaults come from HWTXBUF/HWRXBUF (8/8).",
			knob(bits("RXPBURST", 7, 0, RW, "RX burst length (USB to memory), 32-bit words")),
			knob(bits("TXPBURST", 15, 8, RW, "TX burst length (memory to USB), 32-bit words")),
		), noteBurst),
		reg(0x164, "TXFILLTUNING", 0x00000808, "Host TX pre-fill tuning. Not written by the ChipIdea driver; ehci-hcd writes it only on LPM cores. [SDK] per-core defaults contradict its reset value.",
			knob(bits("TXSCHOH", 7, 0, RW, "scheduler overhead (1.267 us units at high speed)")),
			bits("TXSCHHEALTH", 12, 8, WC, "scheduler health counter (saturates at 31); any write to TXFILLTUNING clears it, so it reads 0 after citune writes the register"),
			knob(bits("TXFIFOTHRES", 21, 16, RW, "bursts posted to the TX FIFO before a packet starts (min 2; ignored with streaming disabled)")),
		),
		readOnly(reg(0x170, "ULPI_VIEWPORT", 0, "ULPI viewport. Writing it starts PHY transactions: citune never writes it.")),
		deviceOnly(w1c(reg(0x178, "ENDPTNAK", 0, "Endpoint NAK status (device, write-1-to-clear). 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("EPRN", 7, 0, W1C, "RX endpoint NAKed"),
			bits("EPTN", 23, 16, W1C, "TX endpoint NAKed"),
		))),
		deviceOnly(reg(0x17C, "ENDPTNAKEN", 0, "Endpoint NAK interrupt enable (device). 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("EPRNE", 7, 0, RW, "RX NAK interrupt enable"),
			bits("EPTNE", 23, 16, RW, "TX NAK interrupt enable"),
		)),
		readOnly(reg(0x180, "CONFIGFLAG", 0x00000001, "Configure flag.",
			bit("CF", 0, RO, "ports routed to this controller"),
		)),
		reg(0x184, "PORTSC1", 0x10000000, "Port status and control. CSC, PEC and OCC are write-1-to-clear.",
			bit("CCS", 0, RO, "current connect status"),
			bit("CSC", 1, W1C, "connect status change"),
			bit("PE", 2, RW, "port enabled"),
			bit("PEC", 3, W1C, "port enable change"),
			bit("OCA", 4, RO, "over-current active"),
			bit("OCC", 5, W1C, "over-current change"),
			bit("FPR", 6, RW, "force port resume"),
			bit("SUSP", 7, RW, "suspend"),
			bit("PR", 8, RW, "port reset"),
			bit("HSP", 9, RO, "high-speed port"),
			named(bits("LS", 11, 10, RO, "line status"), Enum{0, "SE0", "SE0", false}, Enum{1, "K", "K-state", false}, Enum{2, "J", "J-state", false}, Enum{3, "UNDEF", "undefined", false}),
			bit("PP", 12, RW, "port power"),
			bit("PO", 13, RW, "port owner"),
			bits("PIC", 15, 14, RW, "port indicator control"),
			bits("PTC", 19, 16, RW, "port test control"),
			bit("WKCN", 20, RW, "wake on connect"),
			bit("WKDC", 21, RW, "wake on disconnect"),
			bit("WKOC", 22, RW, "wake on over-current"),
			bit("PHCD", 23, RW, "PHY low-power suspend (clock disable)"),
			bit("PFSC", 24, RW, "port force full speed (maximum-speed = \"full-speed\")"),
			bit("PTS2", 25, RW, "port transceiver select, bit 2 (PTS = PTS2:PTS1; 100 = HSIC)"),
			named(bits("PSPD", 27, 26, RO, "port speed"), Enum{0, "FULL", "full speed (12 Mb/s)", false}, Enum{1, "LOW", "low speed (1.5 Mb/s)", false}, Enum{2, "HIGH", "high speed (480 Mb/s)", false}, Enum{3, "UNDEF", "undefined", false}),
			bit("PTW", 28, RW, "parallel transceiver width"),
			bit("STS", 29, RO, "serial transceiver select (read-only)"),
			named(bits("PTS1", 31, 30, RW, "port transceiver select, bits 1:0"), Enum{0, "UTMI", "UTMI/UTMI+ (with PTS2=0)", false}, Enum{2, "ULPI", "ULPI", false}, Enum{3, "SERIAL", "serial/USB 1.1", false}),
		),
		deviceOnly(reg(0x1A4, "OTGSC", 0x00000120, "OTG status and control. Status bits 22:16 are write-1-to-clear.",
			bit("VD", 0, RW, "VBUS discharge"),
			bit("VC", 1, RW, "VBUS charge"),
			bit("OT", 3, RW, "OTG termination"),
			bit("DP", 4, RW, "data pulsing"),
			bit("IDPU", 5, RW, "ID pull-up"),
			bit("HADP", 6, RW, "hardware assist data pulse"),
			bit("HABA", 7, RW, "hardware assist B-disconnect to A-connect"),
			bit("ID", 8, RO, "USB ID"),
			bit("AVV", 9, RO, "A VBUS valid"),
			bit("ASV", 10, RO, "A session valid"),
			bit("BSV", 11, RO, "B session valid"),
			bit("BSE", 12, RO, "B session end"),
			bit("ONEMST", 13, RO, "1 ms timer toggle ([SDK] 1MST)"),
			bit("DPS", 14, RO, "data bus pulsing status"),
			bit("IDIS", 16, W1C, "USB ID interrupt status"),
			bit("AVVIS", 17, W1C, "A VBUS valid interrupt status"),
			bit("ASVIS", 18, W1C, "A session valid interrupt status"),
			bit("BSVIS", 19, W1C, "B session valid interrupt status"),
			bit("BSEIS", 20, W1C, "B session end interrupt status"),
			bit("ONEMSS", 21, W1C, "1 ms timer interrupt status ([SDK] 1MSS)"),
			bit("DPIS", 22, W1C, "data pulse interrupt status"),
			bit("IDIE", 24, RW, "USB ID interrupt enable"),
			bit("AVVIE", 25, RW, "A VBUS valid interrupt enable"),
			bit("ASVIE", 26, RW, "A session valid interrupt enable"),
			bit("BSVIE", 27, RW, "B session valid interrupt enable"),
			bit("BSEIE", 28, RW, "B session end interrupt enable"),
			bit("ONEMSE", 29, RW, "1 ms timer interrupt enable ([SDK] 1MSE)"),
			bit("DPIE", 30, RW, "data pulse interrupt enable"),
		)),
		withNote(reg(0x1A8, "USBMODE", 0x00000000, "USB mode. [SDK] reset 0 for every core although its text says host-only cores reset CM to 3 (host).",
			named(bits("CM", 1, 0, WriteOnce, "controller mode (write-once after reset)"),
				Enum{0, "IDLE", "idle", false}, Enum{1, "RESERVED1", "reserved", true}, Enum{2, "DEVICE", "device controller", false}, Enum{3, "HOST", "host controller", false}),
			bit("ES", 2, RW, "endian select (0 little)"),
			bit("SLOM", 3, RW, "setup lockout off (device)"),
			knob(named(bit("SDIS", 4, RW, "stream disable: 1 turns off the FIFO streaming mode"), Enum{0, "STREAMING", "streaming on", false}, Enum{1, "DISABLED", "streaming disabled", false})),
		), noteSDIS),
		deviceOnly(w1c(reg(0x1AC, "ENDPTSETUPSTAT", 0, "Endpoint setup status (device, write-1-to-clear).",
			bits("ENDPTSETUPSTAT", 15, 0, W1C, "setup received per endpoint"),
		))),
		deviceOnly(reg(0x1B0, "ENDPTPRIME", 0, "Endpoint prime (device): writing 1 primes; citune stores 0 unless asked. 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("PERB", 7, 0, SC, "prime RX endpoint buffers"),
			bits("PETB", 23, 16, SC, "prime TX endpoint buffers"),
		)),
		deviceOnly(reg(0x1B4, "ENDPTFLUSH", 0, "Endpoint flush (device): writing 1 flushes; citune stores 0 unless asked. 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("FERB", 7, 0, SC, "flush RX endpoint buffers"),
			bits("FETB", 23, 16, SC, "flush TX endpoint buffers"),
		)),
		deviceOnly(readOnly(reg(0x1B8, "ENDPTSTAT", 0, "Endpoint status (device). 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("ERBR", 7, 0, RO, "RX endpoint buffer ready"),
			bits("ETBR", 23, 16, RO, "TX endpoint buffer ready"),
		))),
		deviceOnly(w1c(reg(0x1BC, "ENDPTCOMPLETE", 0, "Endpoint complete (device, write-1-to-clear). 8 endpoints: bits 15:8 and 31:24 are reserved.",
			bits("ERCE", 7, 0, W1C, "RX endpoint complete"),
			bits("ETCE", 23, 16, W1C, "TX endpoint complete"),
		))),
	}}
	// ENDPTCTRL0 is the control endpoint: [SDK] has no data sink, toggle
	// inhibit or toggle reset bits there (bits 1, 5, 6, 17, 21, 22 are
	// reserved and shown raw if ever set).
	m.Registers = append(m.Registers, deviceOnly(reg(0x1C0, "ENDPTCTRL0", 0x00800080, "Endpoint 0 control (device). RXR/TXR and the data sink and toggle inhibit bits do not exist on endpoint 0.",
		bit("RXS", 0, RW, "RX endpoint stall"),
		bits("RXT", 3, 2, RW, "RX endpoint type"),
		bit("RXE", 7, RW, "RX endpoint enable"),
		bit("TXS", 16, RW, "TX endpoint stall"),
		bits("TXT", 19, 18, RW, "TX endpoint type"),
		bit("TXE", 23, RW, "TX endpoint enable"),
	)))
	for n := uint32(1); n < 8; n++ {
		m.Registers = append(m.Registers, deviceOnly(reg(0x1C0+4*n, fmt.Sprintf("ENDPTCTRL%d", n), 0, fmt.Sprintf("Endpoint %d control (device).", n),
			bit("RXS", 0, RW, "RX endpoint stall"),
			bit("RXD", 1, RW, "RX endpoint data sink (test only)"),
			bits("RXT", 3, 2, RW, "RX endpoint type"),
			bit("RXI", 5, RW, "RX data toggle inhibit (test only)"),
			bit("RXR", 6, SC, "RX data toggle reset"),
			bit("RXE", 7, RW, "RX endpoint enable"),
			bit("TXS", 16, RW, "TX endpoint stall"),
			bit("TXD", 17, RW, "TX endpoint data source (test only)"),
			bits("TXT", 19, 18, RW, "TX endpoint type"),
			bit("TXI", 21, RW, "TX data toggle inhibit (test only)"),
			bit("TXR", 22, SC, "TX data toggle reset"),
			bit("TXE", 23, RW, "TX endpoint enable"),
		)))
	}
	for i := range m.Registers {
		r := &m.Registers[i]
		switch {
		case !r.ResetKnown:
			r.Source = "unknown: " + srcNone
		case r.Name == "TTCTRL":
			r.Source = SourceTTHA
		case r.Name == "CAPLENGTH":
			r.Source = SourceSDK + " (CAPLENGTH 0x40, HCIVERSION 0x0100 read as one word)"
		default:
			r.Source = SourceSDK
		}
	}
	m.Sort()
	return m
}

// SourceSDK is where the built-in reset values come from (chipidea.md
// §0, §2); profiles for other SoCs say whether it holds there.
const SourceSDK = "i.MX6 Platform SDK regsusbcore.h (mx6dq, USB_UOG_* and USB_UHx_* register sets)"

// SourceTTHA: TTCTRL is not in the SDK; the binding documents TTHA's
// default (its only field): "if not [set], the value will be 0x0, this is
// the default value".
const SourceTTHA = "DT binding chipidea,usb2-common.yaml (non-zero-ttctrl-ttha): TTHA is 0x0 by default, the other bits are not described"

const srcNone = "not in the i.MX6 SDK headers, nor in any other source read"

func withNote(r Register, note string) Register { r.Note = note; return r }
func deviceOnly(r Register) Register            { r.DeviceOnly = true; return r }

// hostAs gives r the name, description and fields it has on a host-only
// core (see Map.ForCore).
func hostAs(r Register, name, desc string, fs ...Field) Register {
	r.HostName, r.HostDesc, r.HostFields = name, desc, fs
	return r
}
func readOnly(r Register) Register { r.ReadOnly = true; return r }

// hostReset gives r the value it reads on a host-only core, where it is
// kept (a register Linux needs on every core) and src says why.
func hostReset(r Register, v uint32, src string) Register {
	r.HostReset, r.HostSource = v, src
	return r
}

// srcHostDCCPARAMS: the SDK's USB_UHx sets list no DCCPARAMS, but Linux
// reads it on every core: ci_hdrc_host_init() (drivers/usb/chipidea/host.c)
// returns -ENXIO unless DCCPARAMS.HC reads 1, and hw_device_init() (core.c)
// takes the endpoint count from DCCPARAMS.DEN. The i.MX6Q usbh1-usbh3
// ports probe as hosts, so HC reads 1 there; DC=0 and DEN=0 because the
// core has no device part (no HWDEVICE or ENDPT* registers in the SDK).
// QEMU's ChipIdea model returns HC only (0x100) for the same reason.
const srcHostDCCPARAMS = "host-only core: HC=1, DC=0, DEN=0, derived: Linux ci_hdrc_host_init() (drivers/usb/chipidea/host.c) refuses a core whose DCCPARAMS.HC reads 0 and the host-only ports probe; no device part (i.MX6 SDK USB_UHx sets); QEMU hw/usb/chipidea.c reads 0x100"

func w1c(r Register) Register { r.W1C = true; return r }
func neverSet(f Field) Field  { f.Never = true; return f }
func rangeOf(f Field, lo, hi uint32) Field {
	f.HasRange, f.Min, f.Max = true, lo, hi
	return f
}
