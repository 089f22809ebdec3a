// The one table of an item's fields (`cx_item_fields`): their keys in both of the SDKs' dialects,
#include "item_fields.hpp"
// how the index keeps each, the value slot of each attribute, and which values give their field
// back. The Kit reads it for its reader, its Branch dictionary and its attributes; stored.cpp for
// the keys an item's data leaves out.

namespace cx {

namespace {

constexpr uint32_t no_slot = 0;

/// A field kept only in the stored data.
constexpr cx_item_field stored(const char *name, const char *branch, cx_json_type type, bool nested) {
    return {name, branch, name, nullptr, nested, type, CX_USE_STORED, nullptr, no_slot, CX_VALUE_NUMBER, false};
}

/// A field that is also an attribute, `attribute` in the query language, in `slot`.
constexpr cx_item_field attribute(const char *name, const char *branch, cx_json_type type, bool nested,
                                  const char *attribute, uint32_t slot, cx_value_kind kind, bool given_back) {
    return {name, branch, name, nullptr, nested, type, CX_USE_ATTRIBUTE, attribute, slot, kind, given_back};
}

/// A field the index keeps in its own way (`use`).
constexpr cx_item_field kept(const char *name, const char *branch, cx_json_type type, cx_field_use use) {
    return {name, branch, name, nullptr, false, type, use, nullptr, no_slot, CX_VALUE_NUMBER, false};
}

constexpr bool top = false;
constexpr bool nested = true;

constexpr cx_item_field table[] = {
    kept("canonicalIdentifier", "$canonical_identifier", CX_JSON_TEXT, CX_USE_IDENTITY),
    stored("canonicalUrl", "$canonical_url", CX_JSON_TEXT, top),
    kept("title", "$og_title", CX_JSON_TEXT, CX_USE_WORDS),
    kept("contentDescription", "$og_description", CX_JSON_TEXT, CX_USE_WORDS),
    {"imageUrl", "$og_image_url", "imageUrl", "contentImageUrl", top, CX_JSON_TEXT, CX_USE_STORED, nullptr, no_slot,
     CX_VALUE_NUMBER, false},
    kept("keywords", "$keywords", CX_JSON_TEXTS, CX_USE_KEYWORDS),
    attribute("expirationDate", "$exp_date", CX_JSON_DATE, top, "expires", CX_SLOT_EXPIRATION, CX_VALUE_NUMBER,
              false),
    attribute("creationDate", "$creation_timestamp", CX_JSON_DATE, top, "created", CX_SLOT_FIRST_ATTRIBUTE + 0,
              CX_VALUE_NUMBER, true),
    stored("locallyIndex", "$locally_indexable", CX_JSON_BOOL, top),
    kept("publiclyIndex", "$publicly_indexable", CX_JSON_BOOL, CX_USE_MODE),
    {"contentIndexMode", nullptr, "contentIndexMode", nullptr, top, CX_JSON_MODE, CX_USE_MODE, nullptr, no_slot,
     CX_VALUE_NUMBER, false},
    // Recorded views: the same key in both dialects, written by `export`.
    {"searchlight:views", "searchlight:views", "searchlight:views", nullptr, top, CX_JSON_COUNT, CX_USE_ATTRIBUTE,
     "views", CX_SLOT_VIEWS, CX_VALUE_NUMBER, false},
    // The content metadata: flat `$` keys, or under `contentMetadata`.
    {"contentSchema", "$content_schema", "contentSchema", nullptr, nested, CX_JSON_TEXT, CX_USE_FILTER, nullptr,
     no_slot, CX_VALUE_NUMBER, false},
    attribute("price", "$price", CX_JSON_NUMBER, nested, "price", CX_SLOT_FIRST_ATTRIBUTE + 1, CX_VALUE_NUMBER, true),
    attribute("currency", "$currency", CX_JSON_TEXT, nested, "currency", CX_SLOT_FIRST_ATTRIBUTE + 6, CX_VALUE_TEXT,
              true),
    stored("quantity", "$quantity", CX_JSON_NUMBER, nested),
    stored("sku", "$sku", CX_JSON_TEXT, nested),
    stored("productName", "$product_name", CX_JSON_TEXT, nested),
    attribute("productBrand", "$product_brand", CX_JSON_TEXT, nested, "brand", CX_SLOT_FIRST_ATTRIBUTE + 4,
              CX_VALUE_TEXT, true),
    attribute("productCategory", "$product_category", CX_JSON_TEXT, nested, "category", CX_SLOT_FIRST_ATTRIBUTE + 3,
              CX_VALUE_TEXT, true),
    stored("productVariant", "$product_variant", CX_JSON_TEXT, nested),
    attribute("condition", "$condition", CX_JSON_TEXT, nested, "condition", CX_SLOT_FIRST_ATTRIBUTE + 5,
              CX_VALUE_TEXT, true),
    // The rating attribute holds the average, or the rating where there is no average.
    attribute("ratingAverage", "$rating_average", CX_JSON_NUMBER, nested, "rating", CX_SLOT_FIRST_ATTRIBUTE + 2,
              CX_VALUE_NUMBER, true),
    stored("ratingCount", "$rating_count", CX_JSON_NUMBER, nested),
    stored("ratingMax", "$rating_max", CX_JSON_NUMBER, nested),
    stored("rating", "$rating", CX_JSON_NUMBER, nested),
    stored("addressStreet", "$address_street", CX_JSON_TEXT, nested),
    attribute("addressCity", "$address_city", CX_JSON_TEXT, nested, "city", CX_SLOT_FIRST_ATTRIBUTE + 7,
              CX_VALUE_TEXT, true),
    stored("addressRegion", "$address_region", CX_JSON_TEXT, nested),
    attribute("addressCountry", "$address_country", CX_JSON_TEXT, nested, "country", CX_SLOT_FIRST_ATTRIBUTE + 8,
              CX_VALUE_TEXT, true),
    stored("addressPostalCode", "$address_postal_code", CX_JSON_TEXT, nested),
    // A place: both coordinates make one point. A `LatLongCoord` does not keep them exactly.
    attribute("latitude", "$latitude", CX_JSON_NUMBER, nested, "location", CX_SLOT_FIRST_ATTRIBUTE + 9,
              CX_VALUE_POINT, false),
    attribute("longitude", "$longitude", CX_JSON_NUMBER, nested, "location", CX_SLOT_FIRST_ATTRIBUTE + 9,
              CX_VALUE_POINT, false),
    stored("imageCaptions", "$image_captions", CX_JSON_TEXTS, nested),
    // The language the item's words are in (SPEC §2.5): as the item gives it, or as the Kit tells it.
    attribute("language", "$language", CX_JSON_TEXT, top, "language", CX_SLOT_FIRST_ATTRIBUTE + 10, CX_VALUE_TEXT,
              true),
};

/// `cx_item.moved` keeps two bytes: one bit for each of the first sixteen attribute slots.
static_assert(
    [] {
        for (const cx_item_field &field : table) {
            if (field.given_back && (field.slot < CX_SLOT_FIRST_ATTRIBUTE || field.slot - CX_SLOT_FIRST_ATTRIBUTE >= 16))
                return false;
        }
        return true;
    }(),
    "a field given back by its value must be in one of the first sixteen attribute slots");

}  // namespace

const cx_item_field *ItemFields::begin() const { return std::begin(table); }
const cx_item_field *ItemFields::end() const { return std::end(table); }

}  // namespace cx

extern "C" {

const cx_item_field *cx_item_fields(size_t *out_count) {
    *out_count = std::size(cx::table);
    return cx::table;
}

}  // extern "C"
