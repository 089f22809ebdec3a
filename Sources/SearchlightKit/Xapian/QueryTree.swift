internal import CXapian

/// A ``QueryExpression`` laid out as the shim reads it: nodes in pre-order, each followed by its
/// children, their text packed into the call's ``TextArena``.
struct QueryTree {
    private struct Node {
        var kind: cx_node_kind
        var field: cx_field
        var text: TextArena.Range
        var childCount: Int
        /// For a word, where it stands in the query text.
        var location: Range<Int>?
        /// For a range, an attribute or a distance: the slot, and the numbers it reads.
        var slot: UInt32 = 0
        var low = 0.0
        var high = 0.0
        var radius = 0.0
    }

    private var flattened: [Node] = []
    /// The time of the search, which ranges counted from now start from (epoch ms).
    private let now: Int64

    init(_ expression: QueryExpression, now: Int64, arena: inout TextArena) {
        self.now = now
        append(expression, arena: &arena)
    }

    /// The nodes, pointing into `texts`; valid while `texts` is.
    func nodes(in texts: TextArena.Texts) -> [cx_query_node] {
        flattened.map { node in
            cx_query_node(
                kind: node.kind, field: node.field, text: texts.text(node.text), child_count: UInt32(node.childCount),
                slot: node.slot, low: node.low, high: node.high, radius: node.radius)
        }
    }

    /// Where the word at pre-order position `node` stands in the query text.
    func wordLocation(node: Int) -> Range<Int>? {
        flattened.indices.contains(node) ? flattened[node].location : nil
    }

    private mutating func append(_ expression: QueryExpression, arena: inout TextArena) {
        switch expression {
        case .everything:
            flattened.append(Node(kind: CX_NODE_ALL, field: CX_FIELD_ANY, text: arena.add(""), childCount: 0))
        case .word(let word):
            let kind: cx_node_kind =
                switch word.match {
                case .exact: CX_NODE_WORD
                case .prefix: CX_NODE_PREFIX
                case .partial: CX_NODE_PARTIAL
                }
            flattened.append(
                Node(
                    kind: kind, field: word.field.cField, text: arena.add(word.text), childCount: 0,
                    location: word.location))
        case .phrase(let text, let field):
            flattened.append(Node(kind: CX_NODE_PHRASE, field: field.cField, text: arena.add(text), childCount: 0))
        case .filter(let filter, let value):
            flattened.append(Node(kind: CX_NODE_FILTER, field: filter.cField, text: arena.add(value), childCount: 0))
        case .range(let attribute, let low, let high):
            flattened.append(
                Node(
                    kind: CX_NODE_RANGE, field: CX_FIELD_ANY, text: arena.add(""), childCount: 0, slot: attribute.slot,
                    low: low.resolved(now: now), high: high.resolved(now: now)))
        case .attribute(let attribute, let value):
            flattened.append(
                Node(
                    kind: CX_NODE_ATTRIBUTE, field: CX_FIELD_ANY, text: arena.add(value), childCount: 0,
                    slot: attribute.slot))
        case .near(let latitude, let longitude, let metres):
            flattened.append(
                Node(
                    kind: CX_NODE_NEAR, field: CX_FIELD_ANY, text: arena.add(""), childCount: 0,
                    slot: ItemAttribute.location.slot, low: latitude, high: longitude, radius: metres))
        case .and(let operands):
            appendOperator(CX_NODE_AND, operands, arena: &arena)
        case .or(let operands):
            appendOperator(CX_NODE_OR, operands, arena: &arena)
        case .xor(let operands):
            appendOperator(CX_NODE_XOR, operands, arena: &arena)
        case .exclude(let kept, let excluded):
            appendOperator(CX_NODE_AND_NOT, [kept] + excluded, arena: &arena)
        }
    }

    private mutating func appendOperator(_ kind: cx_node_kind, _ operands: [QueryExpression], arena: inout TextArena) {
        flattened.append(Node(kind: kind, field: CX_FIELD_ANY, text: arena.add(""), childCount: operands.count))
        for operand in operands { append(operand, arena: &arena) }
    }
}

extension QueryExpression.TextField {
    var cField: cx_field {
        switch self {
        case .any: CX_FIELD_ANY
        case .title: CX_FIELD_TITLE
        case .description: CX_FIELD_DESCRIPTION
        }
    }
}

extension QueryExpression.Filter {
    var cField: cx_field {
        switch self {
        case .keyword: CX_FIELD_KEYWORD
        case .identifier: CX_FIELD_ID
        case .schema: CX_FIELD_SCHEMA
        case .mode: CX_FIELD_MODE
        case .domain: CX_FIELD_DOMAIN
        }
    }
}
