// Full-screen pass: one triangle that covers the viewport (no vertex buffer; positions come from
// gl_VertexID), so there is no diagonal seam and no buffer to manage.
#version 330 core

out vec2 v_uv;

void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));  // (0,0) (2,0) (0,2)
    // The accumulation's row 0 is the top of the image, but GL's texture row 0 is at t = 0 (the bottom
    // of the viewport): flip t so the image is upright without touching the data.
    v_uv = vec2(p.x, 1.0 - p.y);
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
