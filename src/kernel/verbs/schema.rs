//! Tool schemas that every MCP host can read. schemars writes correct JSON Schema 2020-12, but
//! some of it is not portable (MCP Inspector's `--strict` reports each): nullable fields as
//! `"type": [T, "null"]`, free-form values as a bare `true` or a schema with no keyword at all,
//! and Rust's integer formats (`uint8`, `uint64`), which no JSON Schema dialect knows. This pass
//! rewrites those into forms every dialect reads, without changing what is accepted beyond
//! saying that a free-form value is an object (every one of ours is). It also drops what a
//! root schema says only to a Rust reader (its type's name as `title`) or what MCP already
//! assumes (`$schema`: 2020-12 is the default), since every byte of a tool list is read into an
//! agent's context.

use serde_json::{Map, Value, json};

/// Makes the schema `v` (a root schema) portable, in place.
pub fn portable(v: &mut Value) {
    if let Value::Object(o) = v {
        o.remove("$schema");
        o.remove("title");
    }
    fix(v);
}

/// Keywords whose value is one schema.
const ONE: [&str; 6] = ["items", "additionalProperties", "not", "if", "then", "else"];
/// Keywords whose value is a list of schemas.
const LIST: [&str; 4] = ["oneOf", "anyOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const MAP: [&str; 3] = ["properties", "$defs", "patternProperties"];

/// Keywords that constrain a value (rather than describe it).
const VALIDATING: [&str; 14] = [
    "type",
    "enum",
    "const",
    "$ref",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "properties",
    "items",
    "minimum",
    "maximum",
    "pattern",
    "format",
];

/// A schema in a position where a value is described (not `additionalProperties: true`, which
/// says extra properties are allowed and is portable).
fn fix(v: &mut Value) {
    match v {
        // A bare `true` (or `{}` with only words): a free-form value. Ours are all objects.
        Value::Bool(true) => *v = free_form(Map::new()),
        Value::Object(o) => {
            if !o.keys().any(|k| VALIDATING.contains(&k.as_str())) {
                let words = std::mem::take(o);
                *v = free_form(words);
                return;
            }
            fix_object(o)
        }
        _ => {}
    }
}

fn free_form(mut words: Map<String, Value>) -> Value {
    words.insert("type".into(), json!("object"));
    words.insert("additionalProperties".into(), json!(true));
    Value::Object(words)
}

fn fix_object(o: &mut Map<String, Value>) {
    if let Some(Value::String(f)) = o.get("format")
        && (f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float")
    {
        o.remove("format");
    }
    for k in ONE {
        if let Some(s) = o.get_mut(k)
            && !(k == "additionalProperties" && s.is_boolean())
        {
            fix(s);
        }
    }
    for k in LIST {
        if let Some(Value::Array(list)) = o.get_mut(k) {
            list.iter_mut().for_each(fix);
        }
    }
    for k in MAP {
        if let Some(Value::Object(m)) = o.get_mut(k) {
            m.values_mut().for_each(fix);
        }
    }
    nullable_to_any_of(o);
}

/// `{"type": [T, "null"], ...constraints}` → `{"anyOf": [{"type": T, ...constraints},
/// {"type": "null"}]}`, keeping the words (description, default) outside.
fn nullable_to_any_of(o: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = o.get("type") else {
        return;
    };
    let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    // Only one type besides null, and null among them.
    let ([other], true) = (others.as_slice(), others.len() < types.len()) else {
        return;
    };
    const WORDS: [&str; 5] = ["description", "default", "title", "examples", "deprecated"];
    let mut typed = Map::new();
    typed.insert("type".into(), other.clone());
    let keys: Vec<String> = o.keys().cloned().collect();
    for k in keys {
        if k != "type"
            && !WORDS.contains(&k.as_str())
            && let Some(v) = o.remove(&k)
        {
            typed.insert(k, v);
        }
    }
    o.remove("type");
    o.insert(
        "anyOf".into(),
        json!([Value::Object(typed), { "type": "null" }]),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_types_free_forms_and_rust_formats_are_rewritten() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "game": { "type": ["string", "null"], "description": "Which game." },
                "level": { "type": ["integer", "null"], "format": "uint8", "minimum": 1, "maximum": 10 },
                "state": true,
                "options": { "description": "Anything." },
                "tick": { "type": "integer", "format": "uint64", "minimum": 0 }
            },
            "additionalProperties": false
        });
        portable(&mut s);
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "game": { "description": "Which game.", "anyOf": [{ "type": "string" }, { "type": "null" }] },
                    "level": { "anyOf": [{ "type": "integer", "minimum": 1, "maximum": 10 }, { "type": "null" }] },
                    "state": { "type": "object", "additionalProperties": true },
                    "options": { "description": "Anything.", "type": "object", "additionalProperties": true },
                    "tick": { "type": "integer", "minimum": 0 }
                },
                "additionalProperties": false
            })
        );
    }
}
