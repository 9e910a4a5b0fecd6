//! `/openapi.json`, generated from the route table and the request and response types' JSON
//! Schemas, so it cannot drift from what is served.

use serde_json::{Map, Value, json};

use super::routes;
use moot_kernel::world::sessions::ErrorCode;

pub fn document() -> Value {
    let mut paths = Map::new();
    for r in routes() {
        let mut op = json!({
            "summary": r.summary,
            "responses": {
                r.status.to_string(): {
                    "description": "Success",
                    "content": { "application/json": { "schema": (r.response)() } }
                },
                "default": {
                    "description": "An error: {\"error\": {\"code\", \"message\"}}",
                    "content": { "application/json": { "schema": error_schema() } }
                }
            }
        });
        if r.auth {
            op["security"] = json!([{ "bearer": [] }]);
        }
        if let Some(req) = r.request {
            op["requestBody"] = json!({ "content": { "application/json": { "schema": req() } } });
        }
        let params: Vec<Value> = r
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
            .collect();
        if !params.is_empty() {
            op["parameters"] = Value::Array(params);
        }
        let entry = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        entry[r.method.as_str().to_lowercase()] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": { "title": "moot state-machine host", "version": env!("CARGO_PKG_VERSION") },
        "paths": paths,
        "components": { "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } } }
    })
}

fn error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": { "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": { "enum": ErrorCode::ALL.map(ErrorCode::name) },
                "message": { "type": "string" }
            }
        }}
    })
}
