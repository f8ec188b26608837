"""The number formats of MariaDB 10.11's locales, which FORMAT(X, D, locale) writes: each locale's
decimal point, thousands separator and digit grouping, as MariaDB 10.11 answers them
(information_schema.LOCALES with the `locales` plugin, and FORMAT of 1234567890123.456 in every
locale). A locale of grouping () writes no separator; (3, 2) groups by three, then by two (en_IN).
bg_BG's separator is a NUL byte, as MariaDB writes it (its thousands_sep is '\\0')."""

from __future__ import annotations

# (decimal point, thousands separator, grouping): the locales that write numbers so
_FORMATS: dict[tuple[str, str, tuple[int, ...]], str] = {
    ('.', ',', (3,)): (
        "ar_AE ar_BH ar_DZ ar_EG ar_IN ar_IQ ar_JO ar_KW ar_LB ar_LY ar_MA ar_OM ar_QA ar_SD ar_SY "
        "ar_TN ar_YE en_AU en_CA en_GB en_NZ en_PH en_US en_ZA en_ZW es_DO es_GT es_HN es_MX es_NI "
        "es_PA es_PE es_PR es_SV es_US gu_IN he_IL hi_IN ja_JP ko_KR ms_MY th_TH ur_PK zh_CN zh_HK "
        "zh_TW"
    ),
    (',', '.', (3,)): (
        "be_BY da_DK de_BE de_DE de_LU es_AR es_BO es_CL es_CO es_EC es_ES es_PY es_UY es_VE fo_FO "
        "hu_HU id_ID is_IS lt_LT mn_MN nb_NO no_NO ro_RO ru_UA sq_AL tr_TR uk_UA vi_VN"
    ),
    (',', '', ()): (
        "ca_ES de_AT el_GR eu_ES fr_BE fr_CA fr_CH fr_FR fr_LU gl_ES hr_HR it_IT nl_BE nl_NL pl_PL "
        "pt_BR pt_PT sl_SI"
    ),
    (',', ' ', (3,)): (
        'cs_CZ es_CR et_EE fi_FI ka_GE lv_LV mk_MK ru_RU sk_SK sv_FI sv_SE'
    ),
    ('.', ',', (3, 2)): (
        'en_IN ta_IN te_IN'
    ),
    ('.', '', ()): (
        'ar_SA sr_RS'
    ),
    (',', "'", (3,)): (
        'it_CH rm_CH'
    ),
    (',', '\x00', (3,)): (
        'bg_BG'
    ),
    ('.', "'", (3,)): (
        'de_CH'
    ),
}

LOCALES: dict[str, tuple[str, str, tuple[int, ...]]] = {
    name.lower(): number_format for number_format, names in _FORMATS.items() for name in names.split()
}


def number_format(name: str) -> tuple[str, str, tuple[int, ...]] | None:
    """A locale's (decimal point, thousands separator, grouping), by its name in any case; None
    for a name MariaDB has not (FORMAT then writes en_US's and warns 1649)."""
    return LOCALES.get(name.lower())
