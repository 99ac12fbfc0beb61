// The text of data/cards.json, compiled in (generated card_data.cpp).
#pragma once
namespace cardfit {
const char* card_catalog_json();
}
