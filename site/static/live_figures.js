/* The course's live figures without a kernel (scripts/build_site.py writes their HTML).
 *
 * Each figure is a <div class="pe-live"> holding its controls (range inputs over the
 * indices of the values the site has pictures for, toggle buttons or a drop-down list for a
 * choice), an <img> and a JSON config: the folder of its pictures, one file per combination
 * of indices ("3-0-12.webp"), and each control's readouts. Moving a control shows the
 * picture of the new combination. Controls marked "alone" move one at a time: moving one
 * off its starting value puts the other such controls back to theirs, as the site has no
 * picture of two of them moved at once.
 *
 * A picture is fetched when first needed; once the reader reaches for a figure (pointer
 * over it, or focus in it), the pictures one step away along each control are fetched and
 * decoded ahead, each into an <img> of its own. A move puts the decoded <img> of its
 * picture in place of the one shown, so nothing is decoded between the move and the next
 * frame; a picture not decoded yet takes its place once it is (the last one stays until
 * then). No request leaves the site.
 */
(() => {
  "use strict";

  function setUp(root) {
    const config = JSON.parse(root.querySelector("script.pe-live-config").textContent);
    let picture = root.querySelector("img.pe-live-picture");
    const controls = config.controls;
    const state = config.start.slice();
    const ahead = new Map(); // url -> its <img>, in the order first needed
    const decoded = new Set(); // urls whose <img> has decoded
    const KEPT = 48; // pictures kept decoded per figure, the one shown always among them
    let reached = false;

    const urlOf = (index) =>
      new URL(`${config.frames}${index.join("-")}.${config.extension}`, document.baseURI).href;

    // The state after control i moves to value index j.
    function target(i, j) {
      const next = state.slice();
      next[i] = j;
      if (controls[i].alone && j !== config.start[i]) {
        controls.forEach((c, k) => {
          if (k !== i && c.alone) next[k] = config.start[k];
        });
      }
      return next;
    }

    function fetchAhead(index) {
      const url = typeof index === "string" ? index : urlOf(index);
      if (!ahead.has(url)) {
        const image = new Image(picture.width, picture.height);
        image.className = picture.className;
        image.src = url;
        // A failed request is reported by the browser; its <img> is shown all the same.
        image.decode().then(() => decoded.add(url), () => {});
        ahead.set(url, image);
        for (const [old, kept] of ahead) {
          if (ahead.size <= KEPT) break;
          if (kept !== picture) {
            ahead.delete(old);
            decoded.delete(old);
          }
        }
      }
      return ahead.get(url);
    }

    function fetchNeighbours() {
      if (!reached) return;
      controls.forEach((control, i) => {
        for (const step of [-1, 1]) {
          const j = state[i] + step;
          if (j >= 0 && j < control.readouts.length) fetchAhead(target(i, j));
        }
      });
    }

    // Each control's widgets, and how to show control i's current value on them.
    const widgets = controls.map((control) =>
      root.querySelector(`.pe-live-control[data-name="${control.name}"]`),
    );

    function showValue(i) {
      const row = widgets[i];
      const text = controls[i].readouts[state[i]];
      const range = row.querySelector('input[type="range"]');
      const list = row.querySelector("select");
      if (range) {
        range.value = String(state[i]);
        range.setAttribute("aria-valuetext", text);
        row.querySelector("output").textContent = text;
      } else if (list) {
        list.value = String(state[i]);
      } else {
        row.querySelectorAll("button").forEach((b) => {
          b.setAttribute("aria-pressed", String(Number(b.dataset.index) === state[i]));
        });
      }
    }

    function describe() {
      const values = controls.map((c, i) => `${c.label} = ${c.readouts[state[i]]}`);
      return `${config.figure} with controls: ${values.join(", ")}`;
    }

    // Show the picture at url in place of the one shown, once it is decoded, if the state
    // still asks for it then.
    function showPicture(url) {
      const image = fetchAhead(url);
      const swap = () => {
        if (urlOf(state) !== url || image === picture) return;
        image.alt = describe();
        picture.replaceWith(image);
        picture = image;
      };
      if (decoded.has(url)) swap();
      else image.decode().then(swap, swap);
    }

    function move(i, j) {
      const next = target(i, j);
      next.forEach((value, k) => {
        if (state[k] !== value) {
          state[k] = value;
          showValue(k);
        }
      });
      showValue(i);
      root.dataset.state = state.join("-");
      showPicture(urlOf(state));
      fetchNeighbours();
    }

    controls.forEach((control, i) => {
      const row = widgets[i];
      const range = row.querySelector('input[type="range"]');
      const list = row.querySelector("select");
      if (range) {
        range.addEventListener("input", () => move(i, Number(range.value)));
      } else if (list) {
        list.addEventListener("change", () => move(i, Number(list.value)));
      } else {
        row.querySelectorAll("button").forEach((button) => {
          button.addEventListener("click", () => move(i, Number(button.dataset.index)));
        });
      }
    });

    const reach = () => {
      if (!reached) {
        reached = true;
        fetchNeighbours();
      }
    };
    const first = picture.src; // the picture the page came with
    ahead.set(first, picture);
    picture.decode().then(() => decoded.add(first), () => {});
    root.addEventListener("pointerenter", reach);
    root.addEventListener("focusin", reach);
    root.dataset.state = state.join("-");
    root.dataset.ready = "true";
  }

  function setUpAll() {
    document.querySelectorAll(".pe-live").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
})();
