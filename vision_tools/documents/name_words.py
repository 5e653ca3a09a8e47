"""Words that business names on receipts are made of, and the repair of a misread one.

The OCR reads faded thermal print well, but now and then one letter of a long word goes wrong: "HARDWAKE",
"CONFECTEONERY", or an accent the print never had ("HARDWÀRE"). Names are answered as printed, so such a word is
restored only where it is certain what was printed: the word is not itself a known word, exactly one known word
of the same length fits, and either only an accent differs (any word of 4 letters or more) or one letter differs
in a word of 8 letters or more (shorter words have real neighbours: BAKERS/BAKERY, GRADING/TRADING). Every
restored word lowers the answer's confidence a little, and the step says which words were restored.

Words that are written with accents in real names (CAFÉ) are left out of the lexicon, so they are never "fixed".
"""

from __future__ import annotations

import re
import unicodedata

from vision_tools.documents import config

#: Words of business names (English and Malay), with the plural and variant forms that must not be "repaired".
_WORDS = """
HARDWARE HARDWARES TRADING TRADERS TRADER ENTERPRISE ENTERPRISES CONFECTIONERY CONFECTIONERIES CONFECTIONER
BAKERY BAKERIES BAKERS RESTAURANT RESTAURANTS RESTORAN STATIONERY STATIONERS SUPERMARKET SUPERMARKETS
HYPERMARKET MINIMARKET MINIMART PHARMACY PHARMACIES PHARMACEUTICAL FARMASI ELECTRICAL ELECTRICALS ELECTRONIC
ELECTRONICS MACHINERY MACHINERIES FURNITURE FURNISHING INDUSTRIES INDUSTRIAL INDUSTRY HOLDINGS HOLDING
CORPORATION COMPANY COMPANIES LIMITED BERHAD SENDIRIAN MARKETING SERVICES SERVICE CATERING CATERERS KITCHEN
KITCHENS STATION STATIONS PETROLEUM AUTOMOTIVE ENGINEERING ENGINEERS CONSTRUCTION SUPPLIES SUPPLIERS SUPPLY
DISTRIBUTOR DISTRIBUTORS DISTRIBUTION INTERNATIONAL MANAGEMENT DEVELOPMENT PRINTING PRINTERS BOOKSTORE
BOOKSTORES BOOKSHOP OPTICAL OPTICALS OPTOMETRY CLINIC CLINICS MEDICAL DENTAL HOSPITAL HOTEL HOTELS RESORT
BEAUTY SALON FASHION FASHIONS TEXTILE TEXTILES GROCERY GROCERIES GROCERS PROVISION PROVISIONS SUNDRY SUNDRIES
SEAFOOD SEAFOODS NOODLE NOODLES CHICKEN KOPITIAM MAKANAN MINUMAN PERNIAGAAN SYARIKAT KEDAI PASARAYA EMPORIUM
BOUTIQUE MOTOR MOTORS TYRES BATTERY BATTERIES ALUMINIUM PLASTIC PLASTICS MARKET MARKETS STORE STORES CENTRE
CENTRES CENTER CENTERS BEVERAGE BEVERAGES CONVENIENCE DEPARTMENT GENERAL PRODUCTS PRODUCT TRADE FOODS
STEAMBOAT BISTRO EATERY BUTCHERY FLORIST NURSERY GARDEN GARDENS SPORTS LAUNDRY PHOTOCOPY COMPUTER COMPUTERS
TECHNOLOGY TECHNOLOGIES SOLUTIONS SOLUTION SYSTEMS MANUFACTURING MANUFACTURER WHOLESALE WHOLESALERS RETAIL
RETAILERS HOUSEHOLD BUILDING MATERIALS CHEMICALS STEEL TIMBER PAINT PAINTS LIGHTING DECOR TRAVEL TRAVELS
TOURS AGENCY LOGISTICS TRANSPORT EXPRESS MALAYSIA SELANGOR
"""
NAME_LEXICON = frozenset(_WORDS.split())
_TOKEN = re.compile(r"[^\s,;()&/]+")


def repair_name(text: str) -> tuple[str, list[str]]:
    """``text`` with misread business-name words restored, and the words restored (as read)."""
    restored: list[str] = []

    def repair(match: re.Match[str]) -> str:
        token = match.group(0)
        core = token.strip(".-'\"")
        word = _restore(core)
        if word is None:
            return token
        restored.append(core)
        return token.replace(core, word, 1)

    return _TOKEN.sub(repair, text), restored


def _restore(core: str) -> str | None:
    if not core.isalpha() or core.upper() in NAME_LEXICON:
        return None
    folded = _fold(core).upper()
    accented = folded != core.upper()
    if accented and len(folded) >= config.CONFIG.min_accented and folded in NAME_LEXICON:
        fits = [folded]
    elif len(folded) >= config.CONFIG.min_substituted:
        fits = [w for w in NAME_LEXICON if len(w) == len(folded) and _differs_by_one(folded, w)]
    else:
        return None
    if len(fits) != 1:
        return None
    word = fits[0]
    if core.isupper():
        return word
    return word.capitalize() if core[:1].isupper() else word.lower()


def _fold(word: str) -> str:
    """``word`` without accents (À -> A), letters without an ASCII base kept as they are."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _differs_by_one(a: str, b: str) -> bool:
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1
