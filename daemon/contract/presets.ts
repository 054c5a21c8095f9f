/** Screen presets on the wire: /screen/presets. */

/** A saved screen. `query` is the screen body as the user sent it (either shape). */
export interface Preset {
  id: string;
  name: string;
  description: string | null;
  query: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
