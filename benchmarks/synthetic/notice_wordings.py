"""The words of the notices benchmark (``benchmarks/synthetic/notices.py``): what the signs print and how users ask
about them, with the questions no sign of a kind answers.
"""

from __future__ import annotations

UNANS = "UNANSWERABLE"
KINDS = ("notice_hours", "notice_price", "notice_distance", "notice_fact", "notice_quantity")
#: DejaVu families (<name>.ttf and <name>-Bold.ttf in ``FONT_DIR``): the fonts every machine here has, so a seed
#: draws the same images everywhere.
FAMILIES = ("DejaVuSans", "DejaVuSerif", "DejaVuSansCondensed", "DejaVuSansMono", "DejaVuSerifCondensed")
PALETTES = (  # (board, text, title); every text/board pair has WCAG contrast >= 7
    ((250, 250, 245), (20, 20, 20), (150, 20, 20)), ((20, 70, 40), (255, 255, 255), (255, 230, 120)),
    ((15, 40, 90), (255, 255, 255), (255, 255, 255)), ((250, 215, 40), (10, 10, 10), (10, 10, 10)),
    ((35, 38, 36), (240, 240, 235), (250, 220, 120)), ((245, 235, 210), (60, 35, 20), (110, 35, 15)),
    ((110, 20, 25), (255, 245, 230), (255, 245, 230)), ((235, 242, 250), (10, 40, 90), (10, 40, 90)))
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
DAY_ASK = (("monday", "mon", "Monday", "mondays"), ("tuesday", "tues", "tue", "Tuesday"), ("wednesday", "weds", "wed",
           "wensday"), ("thursday", "thurs", "thu", "Thursday"), ("friday", "fri", "Friday", "fridays"),
           ("saturday", "sat", "Saturday", "saturdy"), ("sunday", "sun", "Sunday", "sundays"))
HOURS_NAMES = (("Riverside Library", "the library"), ("Harbour Pharmacy", "the pharmacy"), ("City Museum", "museum"),
               ("Oakfield Leisure Pool", "the pool"), ("Town Hall Offices", "the town hall"), ("Corner Bakery",
               "the bakery"), ("Greenway Post Office", "the post office"), ("Mill Street Hardware", "the shop"))
H_OPEN = ("what time do they open on {d}", "when do they open {d}?", "{d} opening time?", "wat time do they open {d}",
          "what time does {n} open on {d}?", "opening time on {d} pls", "What time does it open on {d}?")
H_CLOSE = ("when does it close on {d}", "how late r they open {d}", "what time do they shut on {d}?",
           "closing time {d}?", "what time does {n} close on {d}?", "how late are they open on {d}")
H_YN = ("are they open on {d}?", "open on {d}?", "is it open {d}", "is {n} open on {d}?", "r they open {d}")
H_UN = ("do they do deliveries", "are they open on christmas day?", "what are the bank holiday hours",
        "whats their phone number", "is there parking?", "what time do they open on easter monday")
PRICE_THEMES = (  # (titles, base price range, items (printed, asked, factor), extra unanswerables, unlisted ok, jitter)
    (("Coffee & Cake", "The Daily Grind", "MENU", "Hot Drinks"), (1.6, 2.8), (("Espresso", "an espresso", 1),
     ("Americano", "an americano", 1.15), ("Latte", "a latte", 1.3), ("Cappuccino", "a cappuccino", 1.3), ("Flat White",
     "a flat white", 1.35), ("Hot Chocolate", "a hot chocolate", 1.4), ("Pot of Tea", "a pot of tea", 1.1),
     ("Cheese Toastie", "a cheese toastie", 2.3), ("Carrot Cake", "carrot cake", 1.6)),
     ("do they have oat milk?", "is there wifi", "do u take card"), True, True),
    (("Admission Prices", "TICKETS", "Entry Prices", "Swimming Prices"), (6.0, 14.0), (("Adult ticket",
     "an adult ticket", 1), ("Child (5–15)", "a child ticket", 0.6), ("Senior (65+)", "a senior ticket", 0.75),
     ("Student", "a student ticket", 0.75), ("Family (2+2)", "a family ticket", 3), ("Annual pass", "a year pass", 6)),
     ("is there a group discount", "how much is parking", "do i need to book?"), True, True),
    (("Car Park Tariff", "PAY & DISPLAY", "Parking Charges"), (0.8, 2.0), (("Up to 30 mins", "30 mins parking", 0.6),
     ("Up to 1 hour", "1 hr parking", 1), ("Up to 2 hours", "2 hrs", 1.8), ("Up to 3 hours", "3 hours parking", 2.5),
     ("Up to 4 hours", "4 hrs", 3.2), ("All day", "all day parking", 5), ("Overnight", "overnight parking", 6)),
     ("how much is a season ticket", "is it free on sundays?", "whats the price for a motorbike"), False, False),
    (("Today's Bakes", "BAKERY", "Fresh Daily"), (1.2, 2.5), (("Sourdough Loaf", "a sourdough loaf", 2.4), ("Baguette",
     "a baguette", 1.2), ("Cinnamon Bun", "a cinnamon bun", 1.3), ("Sausage Roll", "a sausage roll", 1.2),
     ("Brownie", "a brownie", 1.3), ("Scone with Jam", "a scone", 1.2)),
     ("do they do gluten free bread", "what time do they close", "are the brownies vegan?"), True, True))
P_Q = ("how much is {a}", "price for {a}?", "whats {a}", "how much does {a} cost", "{a} price pls", "cost of {a}?",
       "hw much for {a}")
PLACES = (("Harbour", "the harbour"), ("Old Town", "old town"), ("Railway Station", "the train station"), ("Castle",
          "the castle"), ("Beach", "the beach"), ("Town Centre", "town centre"), ("Museum", "museum"), ("Lighthouse",
          "the lighthouse"), ("Hospital", "the hospital"), ("Market Square", "the market square"), ("Country Park",
          "the country park"), ("Cathedral", "the cathedral"), ("Marina", "the marina"), ("Bus Station",
          "the bus station"), ("Visitor Centre", "the visitor centre"), ("Nature Reserve", "the nature reserve"))
D_Q = ("how far to {a}", "how far is {a}?", "distance to {a}?", "how far is it to {a} pls", "whats the distance to {a}",
       "hw far to {a}")
UNIT_Q = {" km": "how many km to {a}", " mi": "how many miles to {a}", "miles": "how many miles to {a}",
          " m": "how many metres to {a}", "yds": "how many yards to {a}"}
PLACE_TYPES = (  # (noun, preposition, values, facilities, questions)
    ("Block", "in", "ABCDEFG", ("main entrance", "east stairwell", "cafe", "reception desk", "study area"),
     ("which block is affected", "what block is it?", "which block pls")),
    ("Level", "on", "12345", ("main entrance", "cafe", "reception desk", "lecture theatre"),
     ("which level is affected", "what level is it on?", "which lvl?")),
    ("Platform", "on", "123456789", ("waiting room", "footbridge", "ticket office", "kiosk"),
     ("which platform is affected?", "what platform is closed", "which platfrom?")),
    ("Car Park", "in", "123AB", ("pay machines", "exit barrier", "EV chargers"),
     ("which car park is affected?", "what car park?")))
REASONS = ("essential maintenance", "electrical testing", "floor resurfacing", "roof repairs", "a water leak",
           "window replacement", "deep cleaning", "fire alarm testing", "a network upgrade")
STATEMENTS = (("Lifts remain in service.", (("is the lift affected?", "No"), ("can i still use the lift", "Yes"))),
              ("Lifts will be out of service.", (("is the lift affected?", "Yes"), ("will the lift be working", "No"))),
              ("Toilets remain open.", (("are the toilets still open?", "Yes"), ("r the toilets closed", "No"))),
              ("No step-free access during the works.", (("is there step free access?", "No"),)))
F_UN = ("who is doing the work?", "is there a replacement bus", "whats the email address for complaints",
        "which entrance should i use instead?", "will it be noisy")
PRODUCTS = (  # (name, liquid, count noun); drinks get no pack count, so "how much is in it" stays unambiguous
    ("Golden Oat Granola", False, ""), ("Tomato & Basil Soup", True, ""), ("Wholegrain Crackers", False, "crackers"),
    ("Sparkling Orange", True, ""), ("Fruit & Nut Bars", False, "bars"), ("Greek Style Yogurt", False, "pots"),
    ("Apple Juice", True, ""), ("Basmati Rice", False, ""), ("Oat Drink", True, ""), ("Iced Tea", True, ""),
    ("Chocolate Chip Cookies", False, "cookies"))
NUTRIENTS = (("Energy",), ("Fat", "Total fat"), ("of which saturates", "Saturates"), ("Carbohydrate", "Carbs"),
             ("of which sugars", "Sugars"), ("Fibre",), ("Protein",), ("Salt",))
NUT_Q = (("how many calories per {p}", "kcal per {p}?"), ("how much fat per {p}", "total fat per {p}?"),
         ("how much saturated fat per {p}", "sat fat per {p}?"), ("how many carbs per {p}", "carbohydrate per {p}?"),
         ("how much sugar per {p}", "sugar per {p}?", "how many grams of suger per {p}"),
         ("how much fibre per {p}", "fiber per {p}?"), ("how much protein per {p}", "protien per {p}?"),
         ("how much salt per {p}", "salt content per {p}?"))
Q_UN = ("whats the best before date", "where is it made?", "is it gluten free?", "is it suitable for vegans",
        "how much caffeine is in it")
