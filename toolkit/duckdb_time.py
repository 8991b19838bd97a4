"""What DuckDB's time functions accept, known without importing DuckDB (~0.2 s of CPU), so
that ``--timezone`` and ``--time-format`` are checked as fast as any other option (issue
20 item 4: every command-line error within 0.3 s).

:data:`NAMES` is DuckDB 2.0.1's ``pg_timezone_names()`` (ICU's zone IDs and
their aliases), lower-cased: DuckDB matches a name without regard to case. ICU also takes
custom offsets: ``GMT`` in any case and a sign, then ``h``, ``hh``, ``hmm``, ``hhmm``,
``hmmss``, ``hhmmss`` or ``h[h]:mm[:ss]`` of at most 23:59:59 (ICU's
``ZoneMeta::parseCustomID``, :func:`icu_custom_offset`; checked against DuckDB on every
body of up to six of ``0259:``). ``UTC`` and a sign, in capitals, DuckDB reads its own way
(``UTC+9:`` is a zone, ``UTC+20`` none): it decides those; ``utc`` and a sign in any other
case is none.
:data:`STRPTIME_CODES` and :data:`UNPADDED_CODES` are the codes its ``strptime`` takes
after ``%`` and ``%-``. With a DuckDB other than :data:`DUCKDB_VERSION` installed, a
listed name is still a zone (ICU keeps every ID it had, as an alias), and DuckDB decides
every other name and every format (a later one may know a zone or a code these do not).
Written by :func:`write_module` (``tests/test_option_values.py`` compares it with
DuckDB's).
"""

from __future__ import annotations

import json
import re
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

__all__ = [
    "DUCKDB_VERSION",
    "NAMES",
    "STRPTIME_CODES",
    "UNPADDED_CODES",
    "icu_custom_offset",
    "installed_duckdb_version",
    "known_zone",
    "listed_zone",
    "module_text",
    "strptime_format_error",
    "time_format_error",
    "write_module",
]

#: the DuckDB release whose ``pg_timezone_names()`` :data:`NAMES` is
DUCKDB_VERSION = "2.0.1"
#: the codes DuckDB's ``strptime`` takes after ``%`` (``%%`` is a percent sign) and after
#: ``%-`` (a number without its leading zeros); any other, or a ``%`` ending the format,
#: is an error ("Failed to parse format specifier")
STRPTIME_CODES = frozenset("%ABGHIMSTUVWXYZabcdfghjmnpuwxyz")
UNPADDED_CODES = frozenset("HIMSdjmy")
#: ICU's custom zone IDs (``GMT+5``, ``gmt-05:30``, ...): the offset after the sign
_GMT_OFFSET = re.compile(r"(?i)gmt[+-](.*)", re.DOTALL)
#: ``UTC`` offsets: in capitals, DuckDB's own reading decides; in another case, none
_UTC_OFFSET = re.compile(r"(?i)utc[+-]")
#: ICU's custom offset: digits, or hours, minutes and seconds
_OFFSET_DIGITS = re.compile(r"([0-9]+)(?::([0-9]{2})(?::([0-9]{2}))?)?")
#: ICU's zone for an unknown ID, which DuckDB takes as a zone (UTC)
_UNKNOWN = "Etc/Unknown"


def installed_duckdb_version() -> str | None:
    """The version of the DuckDB installed (its ``.dist-info`` folder's name), without
    importing it; None where not one such folder is beside the package."""
    spec = find_spec("duckdb")
    if spec is None or spec.origin is None:
        return None
    # two (an upgrade's leftover) or none tell no version: DuckDB decides then
    found = list(Path(spec.origin).parent.parent.glob("duckdb-*.dist-info"))
    return found[0].name[len("duckdb-") : -len(".dist-info")] if len(found) == 1 else None


def listed_zone(name: str, duckdb_version: str | None) -> bool | None:
    """Whether DuckDB ``duckdb_version``'s time-zone database knows ``name`` by
    :data:`NAMES` (True or False), or None where only DuckDB can tell: a custom offset,
    ICU's own unknown zone, or a DuckDB other than :data:`DUCKDB_VERSION` (a later one may
    know a zone this list does not)."""
    if name.lower() in NAMES:
        return True
    if name == _UNKNOWN or duckdb_version != DUCKDB_VERSION:
        return None
    gmt = _GMT_OFFSET.fullmatch(name)
    if gmt is not None:
        return icu_custom_offset(gmt.group(1))
    if _UTC_OFFSET.match(name):
        return None if name.startswith("UTC") else False
    return False


def icu_custom_offset(offset: str) -> bool:
    """Whether ``offset``, what follows ``GMT+`` or ``GMT-``, is one ICU's custom zone IDs
    take (``ZoneMeta::parseCustomID``): ``h``, ``hh`` (hours), ``hmm``, ``hhmm``, ``hmmss``,
    ``hhmmss``, or ``h[h]:mm[:ss]``; at most 23 hours, 59 minutes and 59 seconds."""
    parts = _OFFSET_DIGITS.fullmatch(offset)
    if parts is None:
        return False
    digits, minutes, seconds = parts.groups()
    if minutes is not None:
        if len(digits) > 2:
            return False
        hms = (int(digits), int(minutes), int(seconds or 0))
    elif len(digits) > 6:
        return False
    else:
        # hh, hhmm, hhmmss from the right: 530 is 5:30, 12345 is 1:23:45
        value = int(digits)
        if len(digits) <= 2:
            hms = (value, 0, 0)
        elif len(digits) <= 4:
            hms = (value // 100, value % 100, 0)
        else:
            hms = (value // 10000, value // 100 % 100, value % 100)
    return hms[0] <= 23 and hms[1] <= 59 and hms[2] <= 59


def known_zone(name: str) -> bool:
    """Whether DuckDB's time-zone database knows ``name``: :func:`listed_zone` for the
    DuckDB installed where that tells, else DuckDB itself (imported for it, ~0.2 s; once
    imported, it answers in ~15 ms and decides every name)."""
    listed = None if "duckdb" in sys.modules else listed_zone(name, installed_duckdb_version())
    if listed is not None:
        return listed
    from toolkit.native import duckdb

    try:
        duckdb.connect().execute("SELECT timezone(?, TIMESTAMP '2000-01-01')", [name])
    except duckdb.Error:
        return False
    return True


def time_format_error(time_format: str) -> str:
    """Why DuckDB's ``strptime`` refuses ``time_format`` ("" where it takes it):
    :func:`strptime_format_error` for the DuckDB installed where that tells, else DuckDB
    itself (imported for it, ~0.2 s)."""
    reason = strptime_format_error(time_format, installed_duckdb_version())
    if reason is not None:
        return reason
    from toolkit.native import duckdb

    return _strptime_refusal(duckdb.connect(), time_format) or ""


def _strptime_refusal(con: DuckDBPyConnection, time_format: str) -> str | None:
    """DuckDB's reason for refusing ``time_format`` in ``strptime``, None where it takes it."""
    from toolkit.native import duckdb

    try:
        con.execute("SELECT try_strptime('', ?)", [time_format]).fetchall()
    except duckdb.Error as exc:
        return str(exc).partition(": ")[2].strip() or str(exc)
    except UnicodeDecodeError:  # DuckDB's message cut inside the character after a %
        return "an unknown code after a %"
    return None


def strptime_format_error(time_format: str, duckdb_version: str | None) -> str | None:
    """Why DuckDB ``duckdb_version``'s ``strptime`` refuses ``time_format``, in DuckDB's
    words ("Failed to parse format specifier ...: ..."), "" where it takes it, or None
    where only DuckDB can tell (a DuckDB other than :data:`DUCKDB_VERSION`). As DuckDB's
    parser: each ``%`` is followed by one of :data:`STRPTIME_CODES`, or by ``-`` and one
    of :data:`UNPADDED_CODES`."""
    if duckdb_version != DUCKDB_VERSION:
        return None
    at = 0
    while (at := time_format.find("%", at)) >= 0:
        code = time_format[at + 1 : at + 2]
        if not code:
            reason = "Trailing format character %"
        elif code == "-":
            code = "-" + time_format[at + 2 : at + 3]
            reason = "" if code[1:] and code[1] in UNPADDED_CODES else "Unrecognized"
        else:
            reason = "" if code in STRPTIME_CODES else "Unrecognized"
        if reason == "Unrecognized":
            reason = f"Unrecognized format for strftime/strptime: %{code}"
        if reason:
            return f"Failed to parse format specifier {time_format}: {reason}"
        at += 1 + len(code)
    return ""


def _taken(con: DuckDBPyConnection, time_format: str) -> str:
    """The code ending ``time_format`` if DuckDB's ``strptime`` takes it, else ""."""
    return "" if _strptime_refusal(con, time_format) is not None else time_format[-1]


def module_text() -> str:
    """This module's text with the zone names, the strptime codes and the version of the
    DuckDB installed."""
    from toolkit.native import duckdb

    con = duckdb.connect()
    names = sorted(
        {
            str(row[0]).lower()
            for row in con.execute("SELECT name FROM pg_timezone_names()").fetchall()
        }
    )
    codes = {
        prefix: "".join(sorted(_taken(con, prefix + chr(c)) for c in range(32, 127)))
        for prefix in ("%", "%-")
    }
    text = Path(__file__).read_text(encoding="utf-8")
    head = text[: text.index("\nNAMES = frozenset(\n") + 1]
    version = duckdb.__version__
    head = re.sub(r'(?m)^DUCKDB_VERSION = "[^"]*"$', f'DUCKDB_VERSION = "{version}"', head)
    head = re.sub(r"(?m)^(:data:`NAMES` is DuckDB )[0-9.]+'s", rf"\g<1>{version}'s", head)
    for name, prefix in (("STRPTIME_CODES", "%"), ("UNPADDED_CODES", "%-")):
        line = f"{name} = frozenset({json.dumps(codes[prefix])})"
        head = re.sub(rf"(?m)^{name} = frozenset\(.*\)$", line.replace("\\", "\\\\"), head)
    body = "".join(f"        {json.dumps(name)},\n" for name in names)
    return f"{head}NAMES = frozenset(\n    {{\n{body}    }}\n)\n"


def write_module() -> Path:
    """Write this module again with the zone names of the DuckDB installed (after an
    upgrade of DuckDB); returns its path."""
    path = Path(__file__)
    path.write_text(module_text(), encoding="utf-8")
    return path


#: DuckDB's zone names, lower-cased
NAMES = frozenset(
    {
        "act",
        "aet",
        "africa/abidjan",
        "africa/accra",
        "africa/addis_ababa",
        "africa/algiers",
        "africa/asmara",
        "africa/asmera",
        "africa/bamako",
        "africa/bangui",
        "africa/banjul",
        "africa/bissau",
        "africa/blantyre",
        "africa/brazzaville",
        "africa/bujumbura",
        "africa/cairo",
        "africa/casablanca",
        "africa/ceuta",
        "africa/conakry",
        "africa/dakar",
        "africa/dar_es_salaam",
        "africa/djibouti",
        "africa/douala",
        "africa/el_aaiun",
        "africa/freetown",
        "africa/gaborone",
        "africa/harare",
        "africa/johannesburg",
        "africa/juba",
        "africa/kampala",
        "africa/khartoum",
        "africa/kigali",
        "africa/kinshasa",
        "africa/lagos",
        "africa/libreville",
        "africa/lome",
        "africa/luanda",
        "africa/lubumbashi",
        "africa/lusaka",
        "africa/malabo",
        "africa/maputo",
        "africa/maseru",
        "africa/mbabane",
        "africa/mogadishu",
        "africa/monrovia",
        "africa/nairobi",
        "africa/ndjamena",
        "africa/niamey",
        "africa/nouakchott",
        "africa/ouagadougou",
        "africa/porto-novo",
        "africa/sao_tome",
        "africa/timbuktu",
        "africa/tripoli",
        "africa/tunis",
        "africa/windhoek",
        "agt",
        "america/adak",
        "america/anchorage",
        "america/anguilla",
        "america/antigua",
        "america/araguaina",
        "america/argentina/buenos_aires",
        "america/argentina/catamarca",
        "america/argentina/comodrivadavia",
        "america/argentina/cordoba",
        "america/argentina/jujuy",
        "america/argentina/la_rioja",
        "america/argentina/mendoza",
        "america/argentina/rio_gallegos",
        "america/argentina/salta",
        "america/argentina/san_juan",
        "america/argentina/san_luis",
        "america/argentina/tucuman",
        "america/argentina/ushuaia",
        "america/aruba",
        "america/asuncion",
        "america/atikokan",
        "america/atka",
        "america/bahia",
        "america/bahia_banderas",
        "america/barbados",
        "america/belem",
        "america/belize",
        "america/blanc-sablon",
        "america/boa_vista",
        "america/bogota",
        "america/boise",
        "america/buenos_aires",
        "america/cambridge_bay",
        "america/campo_grande",
        "america/cancun",
        "america/caracas",
        "america/catamarca",
        "america/cayenne",
        "america/cayman",
        "america/chicago",
        "america/chihuahua",
        "america/ciudad_juarez",
        "america/coral_harbour",
        "america/cordoba",
        "america/costa_rica",
        "america/coyhaique",
        "america/creston",
        "america/cuiaba",
        "america/curacao",
        "america/danmarkshavn",
        "america/dawson",
        "america/dawson_creek",
        "america/denver",
        "america/detroit",
        "america/dominica",
        "america/edmonton",
        "america/eirunepe",
        "america/el_salvador",
        "america/ensenada",
        "america/fort_nelson",
        "america/fort_wayne",
        "america/fortaleza",
        "america/glace_bay",
        "america/godthab",
        "america/goose_bay",
        "america/grand_turk",
        "america/grenada",
        "america/guadeloupe",
        "america/guatemala",
        "america/guayaquil",
        "america/guyana",
        "america/halifax",
        "america/havana",
        "america/hermosillo",
        "america/indiana/indianapolis",
        "america/indiana/knox",
        "america/indiana/marengo",
        "america/indiana/petersburg",
        "america/indiana/tell_city",
        "america/indiana/vevay",
        "america/indiana/vincennes",
        "america/indiana/winamac",
        "america/indianapolis",
        "america/inuvik",
        "america/iqaluit",
        "america/jamaica",
        "america/jujuy",
        "america/juneau",
        "america/kentucky/louisville",
        "america/kentucky/monticello",
        "america/knox_in",
        "america/kralendijk",
        "america/la_paz",
        "america/lima",
        "america/los_angeles",
        "america/louisville",
        "america/lower_princes",
        "america/maceio",
        "america/managua",
        "america/manaus",
        "america/marigot",
        "america/martinique",
        "america/matamoros",
        "america/mazatlan",
        "america/mendoza",
        "america/menominee",
        "america/merida",
        "america/metlakatla",
        "america/mexico_city",
        "america/miquelon",
        "america/moncton",
        "america/monterrey",
        "america/montevideo",
        "america/montreal",
        "america/montserrat",
        "america/nassau",
        "america/new_york",
        "america/nipigon",
        "america/nome",
        "america/noronha",
        "america/north_dakota/beulah",
        "america/north_dakota/center",
        "america/north_dakota/new_salem",
        "america/nuuk",
        "america/ojinaga",
        "america/panama",
        "america/pangnirtung",
        "america/paramaribo",
        "america/phoenix",
        "america/port-au-prince",
        "america/port_of_spain",
        "america/porto_acre",
        "america/porto_velho",
        "america/puerto_rico",
        "america/punta_arenas",
        "america/rainy_river",
        "america/rankin_inlet",
        "america/recife",
        "america/regina",
        "america/resolute",
        "america/rio_branco",
        "america/rosario",
        "america/santa_isabel",
        "america/santarem",
        "america/santiago",
        "america/santo_domingo",
        "america/sao_paulo",
        "america/scoresbysund",
        "america/shiprock",
        "america/sitka",
        "america/st_barthelemy",
        "america/st_johns",
        "america/st_kitts",
        "america/st_lucia",
        "america/st_thomas",
        "america/st_vincent",
        "america/swift_current",
        "america/tegucigalpa",
        "america/thule",
        "america/thunder_bay",
        "america/tijuana",
        "america/toronto",
        "america/tortola",
        "america/vancouver",
        "america/virgin",
        "america/whitehorse",
        "america/winnipeg",
        "america/yakutat",
        "america/yellowknife",
        "antarctica/casey",
        "antarctica/davis",
        "antarctica/dumontdurville",
        "antarctica/macquarie",
        "antarctica/mawson",
        "antarctica/mcmurdo",
        "antarctica/palmer",
        "antarctica/rothera",
        "antarctica/south_pole",
        "antarctica/syowa",
        "antarctica/troll",
        "antarctica/vostok",
        "arctic/longyearbyen",
        "art",
        "asia/aden",
        "asia/almaty",
        "asia/amman",
        "asia/anadyr",
        "asia/aqtau",
        "asia/aqtobe",
        "asia/ashgabat",
        "asia/ashkhabad",
        "asia/atyrau",
        "asia/baghdad",
        "asia/bahrain",
        "asia/baku",
        "asia/bangkok",
        "asia/barnaul",
        "asia/beirut",
        "asia/bishkek",
        "asia/brunei",
        "asia/calcutta",
        "asia/chita",
        "asia/choibalsan",
        "asia/chongqing",
        "asia/chungking",
        "asia/colombo",
        "asia/dacca",
        "asia/damascus",
        "asia/dhaka",
        "asia/dili",
        "asia/dubai",
        "asia/dushanbe",
        "asia/famagusta",
        "asia/gaza",
        "asia/harbin",
        "asia/hebron",
        "asia/ho_chi_minh",
        "asia/hong_kong",
        "asia/hovd",
        "asia/irkutsk",
        "asia/istanbul",
        "asia/jakarta",
        "asia/jayapura",
        "asia/jerusalem",
        "asia/kabul",
        "asia/kamchatka",
        "asia/karachi",
        "asia/kashgar",
        "asia/kathmandu",
        "asia/katmandu",
        "asia/khandyga",
        "asia/kolkata",
        "asia/krasnoyarsk",
        "asia/kuala_lumpur",
        "asia/kuching",
        "asia/kuwait",
        "asia/macao",
        "asia/macau",
        "asia/magadan",
        "asia/makassar",
        "asia/manila",
        "asia/muscat",
        "asia/nicosia",
        "asia/novokuznetsk",
        "asia/novosibirsk",
        "asia/omsk",
        "asia/oral",
        "asia/phnom_penh",
        "asia/pontianak",
        "asia/pyongyang",
        "asia/qatar",
        "asia/qostanay",
        "asia/qyzylorda",
        "asia/rangoon",
        "asia/riyadh",
        "asia/saigon",
        "asia/sakhalin",
        "asia/samarkand",
        "asia/seoul",
        "asia/shanghai",
        "asia/singapore",
        "asia/srednekolymsk",
        "asia/taipei",
        "asia/tashkent",
        "asia/tbilisi",
        "asia/tehran",
        "asia/tel_aviv",
        "asia/thimbu",
        "asia/thimphu",
        "asia/tokyo",
        "asia/tomsk",
        "asia/ujung_pandang",
        "asia/ulaanbaatar",
        "asia/ulan_bator",
        "asia/urumqi",
        "asia/ust-nera",
        "asia/vientiane",
        "asia/vladivostok",
        "asia/yakutsk",
        "asia/yangon",
        "asia/yekaterinburg",
        "asia/yerevan",
        "ast",
        "atlantic/azores",
        "atlantic/bermuda",
        "atlantic/canary",
        "atlantic/cape_verde",
        "atlantic/faeroe",
        "atlantic/faroe",
        "atlantic/jan_mayen",
        "atlantic/madeira",
        "atlantic/reykjavik",
        "atlantic/south_georgia",
        "atlantic/st_helena",
        "atlantic/stanley",
        "australia/act",
        "australia/adelaide",
        "australia/brisbane",
        "australia/broken_hill",
        "australia/canberra",
        "australia/currie",
        "australia/darwin",
        "australia/eucla",
        "australia/hobart",
        "australia/lhi",
        "australia/lindeman",
        "australia/lord_howe",
        "australia/melbourne",
        "australia/north",
        "australia/nsw",
        "australia/perth",
        "australia/queensland",
        "australia/south",
        "australia/sydney",
        "australia/tasmania",
        "australia/victoria",
        "australia/west",
        "australia/yancowinna",
        "bet",
        "brazil/acre",
        "brazil/denoronha",
        "brazil/east",
        "brazil/west",
        "bst",
        "canada/atlantic",
        "canada/central",
        "canada/east-saskatchewan",
        "canada/eastern",
        "canada/mountain",
        "canada/newfoundland",
        "canada/pacific",
        "canada/saskatchewan",
        "canada/yukon",
        "cat",
        "cet",
        "chile/continental",
        "chile/easterisland",
        "cnt",
        "cst",
        "cst6cdt",
        "ctt",
        "cuba",
        "eat",
        "ect",
        "eet",
        "egypt",
        "eire",
        "est",
        "est5edt",
        "etc/gmt",
        "etc/gmt+0",
        "etc/gmt+1",
        "etc/gmt+10",
        "etc/gmt+11",
        "etc/gmt+12",
        "etc/gmt+2",
        "etc/gmt+3",
        "etc/gmt+4",
        "etc/gmt+5",
        "etc/gmt+6",
        "etc/gmt+7",
        "etc/gmt+8",
        "etc/gmt+9",
        "etc/gmt-0",
        "etc/gmt-1",
        "etc/gmt-10",
        "etc/gmt-11",
        "etc/gmt-12",
        "etc/gmt-13",
        "etc/gmt-14",
        "etc/gmt-2",
        "etc/gmt-3",
        "etc/gmt-4",
        "etc/gmt-5",
        "etc/gmt-6",
        "etc/gmt-7",
        "etc/gmt-8",
        "etc/gmt-9",
        "etc/gmt0",
        "etc/greenwich",
        "etc/uct",
        "etc/universal",
        "etc/utc",
        "etc/zulu",
        "europe/amsterdam",
        "europe/andorra",
        "europe/astrakhan",
        "europe/athens",
        "europe/belfast",
        "europe/belgrade",
        "europe/berlin",
        "europe/bratislava",
        "europe/brussels",
        "europe/bucharest",
        "europe/budapest",
        "europe/busingen",
        "europe/chisinau",
        "europe/copenhagen",
        "europe/dublin",
        "europe/gibraltar",
        "europe/guernsey",
        "europe/helsinki",
        "europe/isle_of_man",
        "europe/istanbul",
        "europe/jersey",
        "europe/kaliningrad",
        "europe/kiev",
        "europe/kirov",
        "europe/kyiv",
        "europe/lisbon",
        "europe/ljubljana",
        "europe/london",
        "europe/luxembourg",
        "europe/madrid",
        "europe/malta",
        "europe/mariehamn",
        "europe/minsk",
        "europe/monaco",
        "europe/moscow",
        "europe/nicosia",
        "europe/oslo",
        "europe/paris",
        "europe/podgorica",
        "europe/prague",
        "europe/riga",
        "europe/rome",
        "europe/samara",
        "europe/san_marino",
        "europe/sarajevo",
        "europe/saratov",
        "europe/simferopol",
        "europe/skopje",
        "europe/sofia",
        "europe/stockholm",
        "europe/tallinn",
        "europe/tirane",
        "europe/tiraspol",
        "europe/ulyanovsk",
        "europe/uzhgorod",
        "europe/vaduz",
        "europe/vatican",
        "europe/vienna",
        "europe/vilnius",
        "europe/volgograd",
        "europe/warsaw",
        "europe/zagreb",
        "europe/zaporozhye",
        "europe/zurich",
        "factory",
        "gb",
        "gb-eire",
        "gmt",
        "gmt+0",
        "gmt-0",
        "gmt0",
        "greenwich",
        "hongkong",
        "hst",
        "iceland",
        "iet",
        "indian/antananarivo",
        "indian/chagos",
        "indian/christmas",
        "indian/cocos",
        "indian/comoro",
        "indian/kerguelen",
        "indian/mahe",
        "indian/maldives",
        "indian/mauritius",
        "indian/mayotte",
        "indian/reunion",
        "iran",
        "israel",
        "ist",
        "jamaica",
        "japan",
        "jst",
        "kwajalein",
        "libya",
        "met",
        "mexico/bajanorte",
        "mexico/bajasur",
        "mexico/general",
        "mit",
        "mst",
        "mst7mdt",
        "navajo",
        "net",
        "nst",
        "nz",
        "nz-chat",
        "pacific/apia",
        "pacific/auckland",
        "pacific/bougainville",
        "pacific/chatham",
        "pacific/chuuk",
        "pacific/easter",
        "pacific/efate",
        "pacific/enderbury",
        "pacific/fakaofo",
        "pacific/fiji",
        "pacific/funafuti",
        "pacific/galapagos",
        "pacific/gambier",
        "pacific/guadalcanal",
        "pacific/guam",
        "pacific/honolulu",
        "pacific/johnston",
        "pacific/kanton",
        "pacific/kiritimati",
        "pacific/kosrae",
        "pacific/kwajalein",
        "pacific/majuro",
        "pacific/marquesas",
        "pacific/midway",
        "pacific/nauru",
        "pacific/niue",
        "pacific/norfolk",
        "pacific/noumea",
        "pacific/pago_pago",
        "pacific/palau",
        "pacific/pitcairn",
        "pacific/pohnpei",
        "pacific/ponape",
        "pacific/port_moresby",
        "pacific/rarotonga",
        "pacific/saipan",
        "pacific/samoa",
        "pacific/tahiti",
        "pacific/tarawa",
        "pacific/tongatapu",
        "pacific/truk",
        "pacific/wake",
        "pacific/wallis",
        "pacific/yap",
        "plt",
        "pnt",
        "poland",
        "portugal",
        "prc",
        "prt",
        "pst",
        "pst8pdt",
        "roc",
        "rok",
        "singapore",
        "sst",
        "systemv/ast4",
        "systemv/ast4adt",
        "systemv/cst6",
        "systemv/cst6cdt",
        "systemv/est5",
        "systemv/est5edt",
        "systemv/hst10",
        "systemv/mst7",
        "systemv/mst7mdt",
        "systemv/pst8",
        "systemv/pst8pdt",
        "systemv/yst9",
        "systemv/yst9ydt",
        "turkey",
        "uct",
        "universal",
        "us/alaska",
        "us/aleutian",
        "us/arizona",
        "us/central",
        "us/east-indiana",
        "us/eastern",
        "us/hawaii",
        "us/indiana-starke",
        "us/michigan",
        "us/mountain",
        "us/pacific",
        "us/pacific-new",
        "us/samoa",
        "utc",
        "vst",
        "w-su",
        "wet",
        "zulu",
    }
)
