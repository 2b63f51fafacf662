# shellcheck shell=bash
# mkey.sh — M_Key checks for fabric tests (sourced after sim.sh).
#
# The simulator enforces M_Keys only behind the rig's proxy: start it with
# `SIM_MKEY=1 sim_start NAME TOPO` (tests/rig/README, "M_Key"). Then:
#
#   mkey_pi NAME HOST DRPATH [PORT] [KEY]
#       PortInfo read by smpquery from HOST along DRPATH (port PORT, default
#       0: a switch's port 0 or a CA's own port), with M_Key KEY (default
#       none, i.e. 0): prints one line
#         "mkey=0x... protect=N lease=N violations=N state=STATE lid=N"
#       and fails, printing nothing, when no answer came (a dropped SMP).
#   mkey_opensm_conf FILE KEY LEVEL [LEASE] [SWEEP]
#       an OpenSM config with m_key KEY, m_key_protection_level LEVEL,
#       m_key_lease_period LEASE (default 0) and sweep_interval SWEEP
#       (default 10; OpenSM raises the lease above it).
#   mkey_derive SECRETFILE GUID
#       loomd's key of node GUID: 0x + the first 8 bytes of
#       HMAC-SHA256(secret, GUID big-endian), computed with openssl and xxd.
#   mkey_proxy_count NAME WHAT
#       how many lines of the proxy's log say WHAT ("wrong key", "trap 256",
#       "M_Key reads 0").
#
# Set SIM_MKEY_BYPASS=1 on one sim_run to talk to ibsim past the proxy.

mkey_pi() { # NAME HOST DRPATH [PORT] [KEY]
	local out
	out=$(sim_run "$1" --host "$2" --timeout 30 smpquery -K ${5:+-y "$5"} -D portinfo \
		"$3" "${4:-0}" 2>/dev/null) || return 1
	awk -F':\\.+' '
		$1 == "Mkey" { k = $2 } $1 == "ProtectBits" { p = $2 }
		$1 == "MkeyLeasePeriod" { l = $2 } $1 == "MkeyViolations" { v = $2 }
		$1 == "LinkState" { s = $2 } $1 == "Lid" { lid = $2 }
		END { if (k == "") exit 1
		      printf "mkey=%s protect=%s lease=%s violations=%s state=%s lid=%s\n",
			     k, p, l, v, s, lid }' <<<"$out"
}

mkey_opensm_conf() { # FILE KEY LEVEL [LEASE] [SWEEP]
	printf 'm_key %s\nm_key_protection_level %s\nm_key_lease_period %s\nsweep_interval %s\n' \
		"$2" "$3" "${4:-0}" "${5:-10}" >"$1"
}

mkey_proxy_count() { # NAME WHAT
	grep -c -- "$2" "$(sim_mkey_log "$1")" || true
}

# mkey_field LINE NAME: one field of an mkey_pi line.
mkey_field() {
	sed -nE "s/.*(^| )$2=([^ ]*).*/\\2/p" <<<"$1"
}

mkey_derive() { # SECRETFILE GUID
	local g=${2#0x} k
	g=$(printf '%016x' "$((16#$g))")
	k=$(printf '%s' "$g" | xxd -r -p |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(xxd -p -c 64 "$1")" | sed 's/.*= *//')
	printf '0x%s\n' "${k:0:16}"
}
